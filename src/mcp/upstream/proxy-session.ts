import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolRequest,
  type ClientCapabilities,
  ErrorCode,
  McpError,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  type JSONRPCMessage,
  type JSONRPCNotification,
  ListRootsRequestSchema,
  type ListRootsResult,
  LoggingMessageNotificationSchema,
  type LoggingLevel,
  type ReadResourceResult,
  type RequestId,
  type Resource,
  type Result,
  ResultSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { type Dispatcher } from 'undici';
import { credentialHeaders, credentialSecrets } from '../../gateways/gateway-credentials';
import { upstreamTransport, type UpstreamEndpoint } from '../../upstream/upstream-transport';
import { errorResponse, RpcError, upstreamFailure } from '../mcp-errors';
import { CallTimer } from './call-timer';
import { postMessage, postRequest, type UpstreamChannel } from './upstream-http';

/**
 * How long a request to the client (sampling, elicitation, roots) may wait for its answer: a person
 * may be answering it, so far longer than an upstream is given.
 */
export const CLIENT_ANSWER_TIMEOUT_MS = 10 * 60_000;

/** One downstream tools/call being served, as the upstream session sees it. */
export interface CallContext {
  requestId: RequestId;
  signal: AbortSignal;
  /** A notification about this call (progress, logging), for the client. */
  notify(notification: JSONRPCNotification): void;
  /**
   * A request the upstream makes during this call (sampling, elicitation, roots); the client
   * answers, in its own time: the upstream timeout does not run meanwhile.
   */
  ask(request: ServerRequest): Promise<Result>;
}

/** Where upstream messages that belong to no call in flight go: the downstream session's stream. */
export interface DownstreamLink {
  capabilities: ClientCapabilities;
  request(request: ServerRequest): Promise<Result>;
  notify(notification: ServerNotification): Promise<void>;
}

export interface UpstreamTarget {
  gatewayId: string;
  /** For error messages. */
  slug: string;
  endpoint: UpstreamEndpoint;
}

/** What the downstream client can do is what Portico declares upstream, extensions included. */
function mirroredCapabilities({
  sampling,
  elicitation,
  roots,
  experimental,
  extensions,
}: ClientCapabilities & {
  extensions?: unknown;
}): ClientCapabilities {
  return {
    ...(sampling ? { sampling } : {}),
    ...(elicitation ? { elicitation } : {}),
    ...(roots ? { roots } : {}),
    ...(experimental ? { experimental } : {}),
    ...(extensions ? { extensions } : {}),
  };
}

/**
 * One downstream session's own MCP session with one upstream. Never shared between downstream
 * sessions, so whatever the upstream sends during a call (progress, logs, sampling, elicitation,
 * roots requests) can only reach the client that made it.
 *
 * The SDK client opens the session and keeps its GET stream; tool calls to Streamable HTTP
 * upstreams go straight over pooled HTTP (see upstream-http.ts), with the caller's `_meta` and
 * progress token passed through unchanged.
 */
export class ProxySession {
  private readonly inFlight: CallContext[] = [];
  /** The upstream timers of calls in flight on the older SSE transport. */
  private readonly timers = new Map<CallContext, CallTimer>();
  private channel: UpstreamChannel | null = null;
  private sequence = 0;
  private closedFlag = false;
  /** Requests of any kind in progress in this session; it is not ended under them. */
  private busy = 0;
  private idle?: () => void;
  private ending: Promise<void> | null = null;
  /** Ends the upstream's side of the session (Streamable HTTP DELETE). */
  private terminate?: () => Promise<void>;

  private constructor(
    private readonly client: Client,
    readonly target: UpstreamTarget,
    private readonly timeoutMs: number,
  ) {}

  static async connect(
    target: UpstreamTarget,
    link: DownstreamLink,
    timeoutMs: number,
    dispatcher: (url: URL) => Dispatcher,
  ): Promise<ProxySession> {
    const client = new Client(
      { name: 'portico', version: '1.0.0' },
      { capabilities: mirroredCapabilities(link.capabilities) },
    );
    const session = new ProxySession(client, target, timeoutMs);
    session.forwardFrom(link);
    client.onclose = () => {
      session.closedFlag = true;
    };
    client.onerror = (error) => {
      // The upstream went away: fail what is in flight now, and let the next call reconnect.
      if (error.message.startsWith('SSE stream disconnected')) void session.abandon();
    };
    const transport = upstreamTransport(target.endpoint);
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw failure(error, target, timeoutMs);
    }
    if (target.endpoint.transport === 'streamable-http') {
      const http = transport as StreamableHTTPClientTransport;
      const { sessionId, protocolVersion } = http;
      if (sessionId) session.terminate = () => http.terminateSession();
      const url = new URL(target.endpoint.url);
      session.channel = {
        dispatcher: dispatcher(url),
        url,
        headers: {
          ...credentialHeaders(target.endpoint.credentials),
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
          ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
        },
      };
    }
    return session;
  }

  /** Closed, or closing once its requests in flight finish: new work goes to a new session. */
  get closed(): boolean {
    return this.closedFlag || this.ending !== null;
  }

  /** Calls the tool under its upstream name; resolves with its CallToolResult (isError included). */
  async callTool(
    originalName: string,
    params: CallToolRequest['params'],
    context: CallContext,
  ): Promise<Result> {
    this.inFlight.push(context);
    try {
      return await this.track(() =>
        this.channel
          ? this.callDirect(this.channel, originalName, params, context)
          : this.callWithClient(originalName, params, context),
      );
    } catch (error) {
      throw failure(error, this.target, this.timeoutMs);
    } finally {
      this.inFlight.splice(this.inFlight.lastIndexOf(context), 1);
    }
  }

  /** Reads one of the upstream's resources (an MCP Apps UI) in this session. */
  async readResource(uri: string): Promise<ReadResourceResult> {
    try {
      return await this.track(() => this.client.readResource({ uri }, { timeout: this.timeoutMs }));
    } catch (error) {
      throw failure(error, this.target, this.timeoutMs);
    }
  }

  /**
   * The upstream's `resources/list` entry for a URI, looked for in its first `maxPages` pages; null
   * when it has none there or serves no resources.
   */
  async findResource(uri: string, maxPages = 10): Promise<Resource | null> {
    if (!this.client.getServerCapabilities()?.resources) return null;
    let cursor: string | undefined;
    try {
      for (let page = 0; page < maxPages; page++) {
        const listed = await this.track(() =>
          this.client.listResources(cursor === undefined ? {} : { cursor }, {
            timeout: this.timeoutMs,
          }),
        );
        const found = listed.resources.find((resource) => resource.uri === uri);
        if (found) return found;
        if (!listed.nextCursor) return null;
        cursor = listed.nextCursor;
      }
    } catch (error) {
      throw failure(error, this.target, this.timeoutMs);
    }
    return null;
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (this.client.getServerCapabilities()?.logging)
      await this.client.setLoggingLevel(level, { timeout: this.timeoutMs });
  }

  async rootsChanged(): Promise<void> {
    await this.client.sendRootsListChanged();
  }

  /**
   * Ends the session, upstream too (best effort), once the requests in flight in it have finished:
   * closing under them would fail calls that were fine.
   */
  close(): Promise<void> {
    this.ending ??= this.whenIdle().then(() => this.shutDown());
    return this.ending;
  }

  private async shutDown(): Promise<void> {
    this.closedFlag = true;
    if (this.terminate) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.terminate().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, this.timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    await this.client.close().catch(() => undefined);
  }

  /** The upstream went away: fails what is in flight now, with nothing to tell the upstream. */
  private async abandon(): Promise<void> {
    this.closedFlag = true;
    this.ending ??= Promise.resolve();
    await this.client.close().catch(() => undefined);
  }

  private whenIdle(): Promise<void> {
    if (this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  private async track<T>(work: () => Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await work();
    } finally {
      if (--this.busy === 0) this.idle?.();
    }
  }

  private async callDirect(
    channel: UpstreamChannel,
    originalName: string,
    params: CallToolRequest['params'],
    context: CallContext,
  ): Promise<Result> {
    const id = `p.${++this.sequence}`;
    const cancelUpstream = () =>
      void postMessage(channel, {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: {
          requestId: id,
          reason: String(context.signal.reason ?? 'cancelled by the client'),
        },
      }).catch(() => undefined);
    context.signal.addEventListener('abort', cancelUpstream, { once: true });
    try {
      const answer = await postRequest(
        channel,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, name: originalName } },
        {
          timeoutMs: this.timeoutMs,
          signal: context.signal,
          onMessage: (message) => this.duringCall(channel, message, context),
        },
      );
      if ('error' in answer)
        throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
      return answer.result;
    } catch (error) {
      if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
        cancelUpstream();
      throw error;
    } finally {
      context.signal.removeEventListener('abort', cancelUpstream);
    }
  }

  /**
   * For upstreams on the older HTTP+SSE transport, whose answers arrive on the SSE stream. The
   * call's own timer does the timing, so that it can pause while the client answers; the SDK's
   * timeout is only a backstop.
   */
  private async callWithClient(
    originalName: string,
    params: CallToolRequest['params'],
    context: CallContext,
  ): Promise<Result> {
    const { _meta, ...rest } = params;
    const { progressToken, ...meta } = _meta ?? {};
    const abort = new AbortController();
    const cancel = () => abort.abort(context.signal.reason);
    if (context.signal.aborted) cancel();
    else context.signal.addEventListener('abort', cancel, { once: true });
    const timer = new CallTimer(this.timeoutMs, () =>
      abort.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out')),
    );
    this.timers.set(context, timer);
    try {
      return await this.client.request(
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
          signal: abort.signal,
          timeout: this.timeoutMs + CLIENT_ANSWER_TIMEOUT_MS,
          ...(progressToken === undefined
            ? {}
            : {
                // The SDK gives the upstream request its own token; progress returns under the
                // caller's, and counts as a sign of life.
                onprogress: (progress) => {
                  timer.restart();
                  context.notify({
                    jsonrpc: '2.0',
                    method: 'notifications/progress',
                    params: { ...progress, progressToken },
                  });
                },
              }),
        },
      );
    } finally {
      timer.stop();
      this.timers.delete(context);
      context.signal.removeEventListener('abort', cancel);
    }
  }

  /** A message the upstream sent on a call's response stream, before the answer. */
  private duringCall(
    channel: UpstreamChannel,
    message: JSONRPCMessage,
    context: CallContext,
  ): Promise<void> | void {
    if (!('method' in message)) return;
    if (!('id' in message)) {
      context.notify(message);
      return;
    }
    const { id, method, params } = message;
    return context
      .ask({ method, params } as ServerRequest)
      .then(
        (result) => ({ jsonrpc: '2.0' as const, id, result }),
        (error: unknown) => errorResponse(id, error),
      )
      .then((answer) => postMessage(channel, answer))
      .catch(() => undefined);
  }

  /** The call an upstream message most likely belongs to: the latest one in flight. */
  private get current(): CallContext | undefined {
    return this.inFlight[this.inFlight.length - 1];
  }

  /** Handles only what the downstream client declared, as the SDK refuses handlers for the rest. */
  private forwardFrom(link: DownstreamLink): void {
    const ask = (request: ServerRequest) => {
      const call = this.current;
      if (!call) return link.request(request);
      const answer = call.ask(request);
      this.timers.get(call)?.pauseFor(answer);
      return answer;
    };
    const { sampling, elicitation, roots } = link.capabilities;
    // The downstream client's answers pass through unchanged; the SDK checks their shape.
    if (sampling) {
      this.client.setRequestHandler(
        CreateMessageRequestSchema,
        (request) => ask(request) as Promise<CreateMessageResult>,
      );
    }
    if (elicitation) {
      this.client.setRequestHandler(
        ElicitRequestSchema,
        (request) => ask(request) as Promise<ElicitResult>,
      );
    }
    if (roots) {
      this.client.setRequestHandler(
        ListRootsRequestSchema,
        (request) => ask(request) as Promise<ListRootsResult>,
      );
    }
    this.client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
      const call = this.current;
      if (call) call.notify({ jsonrpc: '2.0', ...notification });
      else await link.notify(notification);
    });
  }
}

function failure(error: unknown, target: UpstreamTarget, timeoutMs: number): RpcError {
  const secrets = credentialSecrets(target.endpoint.credentials);
  return upstreamFailure(error, target.slug, timeoutMs, secrets);
}
