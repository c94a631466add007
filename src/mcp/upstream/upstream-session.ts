import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  type ListRootsResult,
  LoggingMessageNotificationSchema,
  type LoggingLevel,
  type RequestId,
  type Result,
  ResultSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { upstreamTransport, type UpstreamEndpoint } from '../../upstream/upstream-transport';
import { upstreamFailure } from '../mcp-errors';

/** What an upstream session needs from the downstream session it serves. */
export interface DownstreamLink {
  capabilities: ClientCapabilities;
  /** Forwards a request the upstream made to the downstream client. */
  request(
    request: ServerRequest,
    relatedRequestId: RequestId | undefined,
    signal: AbortSignal,
  ): Promise<Result>;
  /** Forwards a notification the upstream sent. */
  notify(notification: ServerNotification, relatedRequestId: RequestId | undefined): Promise<void>;
}

export interface UpstreamTarget {
  gatewayId: string;
  /** For error messages. */
  slug: string;
  endpoint: UpstreamEndpoint;
}

type CallExtra = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'requestId' | 'signal' | '_meta' | 'sendNotification'
>;

/** Upstream-capable client capabilities: what the downstream client can do is what Portico declares. */
function mirroredCapabilities(downstream: ClientCapabilities): ClientCapabilities {
  const { sampling, elicitation, roots, experimental, ...rest } = downstream;
  return {
    ...(sampling ? { sampling } : {}),
    ...(elicitation ? { elicitation } : {}),
    ...(roots ? { roots } : {}),
    ...(experimental ? { experimental } : {}),
    // Extension capabilities (such as MCP Apps' io.modelcontextprotocol/ui) pass through as they are.
    ...Object.fromEntries(Object.entries(rest).filter(([key]) => key === 'extensions')),
  };
}

/**
 * One downstream session's own MCP session with one upstream. Never shared between downstream
 * sessions, so whatever the upstream sends during a call (progress, logs, sampling, elicitation,
 * roots requests) can only reach the client that made it.
 */
export class UpstreamSession {
  private readonly inFlight: RequestId[] = [];
  private closedFlag = false;

  private constructor(
    private readonly client: Client,
    readonly target: UpstreamTarget,
    private readonly timeoutMs: number,
  ) {}

  static async connect(
    target: UpstreamTarget,
    link: DownstreamLink,
    timeoutMs: number,
  ): Promise<UpstreamSession> {
    const client = new Client(
      { name: 'portico', version: '1.0.0' },
      { capabilities: mirroredCapabilities(link.capabilities) },
    );
    const session = new UpstreamSession(client, target, timeoutMs);
    session.forwardFrom(link);
    client.onclose = () => {
      session.closedFlag = true;
    };
    client.onerror = (error) => {
      // A broken response stream means the upstream went away mid-call; fail the calls now
      // instead of at the timeout, and let the next call open a new session.
      if (error.message.startsWith('SSE stream disconnected')) void session.close();
    };
    try {
      await client.connect(upstreamTransport(target.endpoint), { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw upstreamFailure(error, target.slug, timeoutMs);
    }
    return session;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  async callTool(
    originalName: string,
    params: CallToolRequest['params'],
    extra: CallExtra,
  ): Promise<CallToolResult> {
    const { _meta, ...rest } = params;
    const { progressToken, ...meta } = _meta ?? {};
    this.inFlight.push(extra.requestId);
    try {
      return (await this.client.request(
        {
          method: 'tools/call',
          params: {
            ...rest,
            name: originalName,
            ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
          },
        },
        ResultSchema,
        {
          signal: extra.signal,
          timeout: this.timeoutMs,
          resetTimeoutOnProgress: true,
          ...(progressToken === undefined
            ? {}
            : {
                // The SDK gives the upstream request its own token; progress comes back under the caller's.
                onprogress: (progress) =>
                  void extra.sendNotification({
                    method: 'notifications/progress',
                    params: { ...progress, progressToken },
                  }),
              }),
        },
      )) as CallToolResult;
    } catch (error) {
      throw upstreamFailure(error, this.target.slug, this.timeoutMs);
    } finally {
      this.inFlight.splice(this.inFlight.lastIndexOf(extra.requestId), 1);
    }
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (this.client.getServerCapabilities()?.logging) await this.client.setLoggingLevel(level);
  }

  async rootsChanged(): Promise<void> {
    await this.client.sendRootsListChanged();
  }

  async close(): Promise<void> {
    this.closedFlag = true;
    await this.client.close().catch(() => undefined);
  }

  /** The downstream request an upstream message most likely belongs to: the latest call in flight. */
  private get currentCall(): RequestId | undefined {
    return this.inFlight[this.inFlight.length - 1];
  }

  /** Handles only what the downstream client declared, as the SDK refuses handlers for the rest. */
  private forwardFrom(link: DownstreamLink): void {
    const { sampling, elicitation, roots } = link.capabilities;
    // The downstream client's answers pass through unchanged; the SDK checks their shape.
    if (sampling) {
      this.client.setRequestHandler(
        CreateMessageRequestSchema,
        (request, extra) =>
          link.request(request, this.currentCall, extra.signal) as Promise<CreateMessageResult>,
      );
    }
    if (elicitation) {
      this.client.setRequestHandler(
        ElicitRequestSchema,
        (request, extra) =>
          link.request(request, this.currentCall, extra.signal) as Promise<ElicitResult>,
      );
    }
    if (roots) {
      this.client.setRequestHandler(
        ListRootsRequestSchema,
        (request, extra) =>
          link.request(request, this.currentCall, extra.signal) as Promise<ListRootsResult>,
      );
    }
    this.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) =>
      link.notify(notification, this.currentCall),
    );
  }
}
