import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ClientCapabilities,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { credentialSecrets } from '../gateways/gateway-credentials';
import { UI_EXTENSION, UI_RESOURCE_MIME_TYPE } from '../tools/tool-ui';
import { UpstreamError, upstreamError } from './upstream-error';
import { type UpstreamEndpoint, upstreamTransport } from './upstream-transport';

/**
 * tools/list as it arrives. Each tool is checked by `admitToolDefinition` later, one by one, so a
 * single tool the SDK's strict schema would reject (say a string `inputSchema`) becomes a conflict
 * in the sync report instead of failing the whole list.
 */
const LooseListToolsResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().nullish(),
});

/** Bounds on what one upstream may make a sync read; beyond them the sync fails and says why. */
export const MAX_TOOL_PAGES = 10_000;
export const MAX_TOOLS = 100_000;
const TERMINATE_TIMEOUT_MS = 1000;

/**
 * Sync declares the MCP Apps extension: ext-apps tells servers to attach `_meta.ui` only for
 * clients that do, and the registry must see every tool's UI to serve it to the clients that can.
 */
const SYNC_CLIENT_CAPABILITIES: ClientCapabilities = {
  extensions: { [UI_EXTENSION]: { mimeTypes: [UI_RESOURCE_MIME_TYPE] } },
};

export interface UpstreamSessionOptions {
  /** Bounds the connection and every request. */
  timeoutMs: number;
  /** Aborts everything, for example at shutdown. */
  signal?: AbortSignal;
  /** Called on each `notifications/tools/list_changed`. */
  onToolsChanged?: () => void;
}

/**
 * One connection to one upstream through the SDK client. A transport failure fails every request in
 * flight at once (the SDK alone would leave them waiting for their timeout) and resolves `lost`.
 */
export class UpstreamSession {
  /** Resolves with the reason once the connection is unusable. */
  readonly lost: Promise<UpstreamError>;
  private readonly failure = new AbortController();
  private readonly onExternalAbort: () => void;
  private markLost!: (reason: UpstreamError) => void;
  private closed = false;

  private constructor(
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly timeoutMs: number,
    private readonly external: AbortSignal | undefined,
    private readonly secrets: readonly string[],
  ) {
    this.lost = new Promise((resolve) => (this.markLost = resolve));
    client.onerror = (error) => this.onTransportError(error);
    client.onclose = () => this.fail(new UpstreamError('the upstream closed the connection'));
    this.onExternalAbort = () => this.fail(this.describe(external?.reason));
    if (external?.aborted) this.onExternalAbort();
    external?.addEventListener('abort', this.onExternalAbort, { once: true });
  }

  private get signal(): AbortSignal {
    return this.failure.signal;
  }

  static async open(
    endpoint: UpstreamEndpoint,
    options: UpstreamSessionOptions,
  ): Promise<UpstreamSession> {
    const client = new Client(
      { name: 'portico', version: '1.0.0' },
      {
        capabilities: SYNC_CLIENT_CAPABILITIES,
      },
    );
    const { onToolsChanged } = options;
    if (onToolsChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
    }
    const transport = upstreamTransport(endpoint);
    const session = new UpstreamSession(
      client,
      transport,
      options.timeoutMs,
      options.signal,
      credentialSecrets(endpoint.credentials),
    );
    try {
      await session.withinDeadline(client.connect(transport, session.requestOptions()));
    } catch (error) {
      const reason = session.explain(error);
      await session.close();
      throw reason;
    }
    return session;
  }

  /** Every tool, following `nextCursor`; each entry is still untrusted. */
  async listTools(): Promise<unknown[]> {
    const tools: unknown[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MAX_TOOL_PAGES)
        throw new UpstreamError(`the upstream sent more than ${MAX_TOOL_PAGES} pages of tools`);
      const result = await this.request(() =>
        this.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          LooseListToolsResult,
          this.requestOptions(),
        ),
      );
      if (tools.length + result.tools.length > MAX_TOOLS)
        throw new UpstreamError(`the upstream lists more than ${MAX_TOOLS} tools`);
      for (const tool of result.tools) tools.push(tool);
      // An empty cursor is a common way of saying "no more"; following it would loop.
      if (!result.nextCursor) return tools;
      if (cursors.has(result.nextCursor))
        throw new UpstreamError('the upstream repeated a page cursor, which would never end');
      cursors.add(result.nextCursor);
      cursor = result.nextCursor;
    }
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return this.request(() =>
      this.client.callTool({ name, arguments: args }, CallToolResultSchema, this.requestOptions()),
    ) as Promise<CallToolResult>;
  }

  async ping(): Promise<void> {
    await this.request(() => this.client.ping(this.requestOptions()));
  }

  /** Ends the upstream session politely when it is still alive, then the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const transport = this.transport;
    if (
      !this.failure.signal.aborted &&
      transport instanceof StreamableHTTPClientTransport &&
      transport.sessionId !== undefined
    ) {
      await this.withinDeadline(transport.terminateSession(), TERMINATE_TIMEOUT_MS).catch(
        () => undefined,
      );
    }
    this.external?.removeEventListener('abort', this.onExternalAbort);
    this.fail(new UpstreamError('the session was closed'));
    await this.client.close().catch(() => undefined);
  }

  private async request<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.explain(error);
    }
  }

  /**
   * Once the transport has failed, that failure is the real reason: the SDK reports requests it
   * cancels on our abort as timeouts.
   */
  private explain(error: unknown): UpstreamError {
    const failure: unknown = this.failure.signal.reason;
    if (this.failure.signal.aborted && failure instanceof UpstreamError) return failure;
    return this.describe(error);
  }

  private describe(error: unknown, timeoutMs = this.timeoutMs): UpstreamError {
    return upstreamError(error, timeoutMs, this.secrets);
  }

  private requestOptions(): RequestOptions {
    return { timeout: this.timeoutMs, signal: this.signal };
  }

  /**
   * A refused standalone GET stream only means the upstream sends no notifications outside
   * requests; a vanished session (404) or any other error means the connection is gone.
   */
  private onTransportError(error: Error): void {
    if (
      error instanceof StreamableHTTPError &&
      error.message.includes('Failed to open SSE stream') &&
      error.code !== 404
    ) {
      return;
    }
    this.fail(this.describe(error));
  }

  private fail(reason: UpstreamError): void {
    if (this.failure.signal.aborted) return;
    this.failure.abort(reason);
    this.markLost(reason);
  }

  /** The SDK bounds requests itself, but not the SSE transport's start nor session termination. */
  private withinDeadline<T>(work: Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.describe(this.signal.reason, timeoutMs));
      const timer = setTimeout(
        () => reject(new UpstreamError(`no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      if (this.signal.aborted) onAbort();
      this.signal.addEventListener('abort', onAbort, { once: true });
      void work.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
      });
    });
  }
}
