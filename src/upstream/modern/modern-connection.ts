import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type DiscoverResult,
  type Implementation,
  type JSONRPCNotification,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Result,
  SERVER_INFO_META_KEY,
  type ServerCapabilities,
} from '@modelcontextprotocol/client';
import { type Channel } from '../transport/channel';
import { requestHeaders, type ToolHeaderParams } from './mcp-param-headers';
import { ModernListen } from './modern-listen';
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from '../eras/protocol-era';
import { resultOf, RpcConnection } from '../rpc-connection';
import {
  type ConnectOptions,
  PORTICO_CLIENT,
  type CallerMeta,
  type RequestOptions,
  type UpstreamConnection,
} from '../upstream-connection';
import { UpstreamFailure, UpstreamRpcError } from '../upstream-error';
import { listAll } from '../upstream-lists';
import { TASKS_EXTENSION } from '../client-capabilities';

export interface ModernConnectOptions extends ConnectOptions {
  /** The 2026-07-28-era version every request states. */
  version: string;
  /** What the upstream told this authorization context in `server/discover`; null: ask it. */
  discover: DiscoverResult | null;
  /** The upstream's tools' `x-mcp-header` declarations, shared by its connections. */
  headerParams: ToolHeaderParams;
  /** The upstream answered as if it no longer spoke this era (an upgrade or downgrade). */
  doubt(reason: string): void;
  /** stdio cancels with `notifications/cancelled`; on HTTP closing the stream is the cancel. */
  pipe: boolean;
}

/**
 * The MCP client of 2026-07-28 upstreams: no handshake and no session. Each request is its own
 * exchange, carrying the `_meta` envelope (version, the caller's capabilities, Portico as client,
 * the log level) and, on HTTP, the standard headers; progress and logs come back on the request's
 * own stream and go to its sink. An `input_required` round goes back to a caller that answers
 * rounds (allowInputRequired), as it came. It has the call interface of a 2025 session, so the
 * upstream client, sync and the CLI use either without knowing which.
 */
export class ModernConnection extends RpcConnection implements UpstreamConnection {
  declare protected readonly options: ModernConnectOptions;
  private readonly listens: ModernListen;
  private readonly closing = new AbortController();
  private established = false;
  private logLevel: string | null = null;
  private discovered: DiscoverResult | null;

  private constructor(channel: Channel, options: ModernConnectOptions) {
    super(channel, options);
    this.discovered = options.discover;
    this.listens = new ModernListen({
      channel,
      nextId: () => this.nextId(),
      listChanges: options.listen === true,
      listener: options.listener,
      closing: this.closing.signal,
      envelope: () => this.envelope(undefined, undefined),
      lose: (error) => this.lose(this.failureOf(error)),
    });
  }

  /** Opens the channel; nothing is sent yet. Throws an UpstreamFailure. */
  static async start(channel: Channel, options: ModernConnectOptions): Promise<ModernConnection> {
    const connection = new ModernConnection(channel, options);
    await connection.startChannel({
      message: (message) => {
        if (!('id' in message)) connection.untied(message);
      },
      lost: (reason) => connection.lose(reason),
    });
    return connection;
  }

  /** What `server/discover` said; asks the upstream when it was not known already. */
  async discover(signal?: AbortSignal): Promise<DiscoverResult> {
    this.discovered ??= await this.request<DiscoverResult>('server/discover', {}, { signal });
    return this.discovered;
  }

  /** Discovers what is not known yet, and opens the listen when the opener hears list changes. */
  async ready(): Promise<void> {
    await this.discover();
    if (this.options.listen === true && this.options.listener?.notification)
      await this.listens.open();
  }

  get discoverResult(): DiscoverResult | null {
    return this.discovered;
  }

  /** What the upstream offers; resource subscriptions ride this connection's listen. */
  get serverCapabilities(): ServerCapabilities {
    return this.discovered?.capabilities ?? {};
  }

  get serverInfo(): Implementation | undefined {
    // 2026-07-28 puts the server's identity in the result's _meta.
    const identity: unknown = this.discovered?._meta?.[SERVER_INFO_META_KEY];
    return identity as Implementation | undefined;
  }

  get protocolVersion(): string {
    return this.options.version;
  }

  async request<T extends Result = Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<T> {
    switch (method) {
      // No ping on this era: a discover shows the upstream answers just as well.
      case 'ping':
        await this.request('server/discover', {}, options);
        return {} as T;
      // No logging/setLevel either: the level rides every request's envelope.
      case 'logging/setLevel':
        this.logLevel = typeof params?.level === 'string' ? params.level : null;
        return {} as T;
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        await this.listens.subscription(
          method,
          params?.uri,
          Boolean(this.discovered?.capabilities.resources?.subscribe),
        );
        return {} as T;
    }
    return this.headerChecked(method, params, options);
  }

  /** The request; a header the upstream refused makes Portico learn the tools' headers once. */
  private async headerChecked<T extends Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    if (method === 'tools/call') this.refuseInvalidTool(params);
    try {
      return await this.sent<T>(method, params, options);
    } catch (error) {
      // The upstream checks Mcp-Param-* against the tool's schema; learn it once and try again.
      const mismatch = error instanceof UpstreamRpcError && error.code === HEADER_MISMATCH;
      if (!mismatch || method !== 'tools/call' || this.options.headerParams.loaded) throw error;
      await listAll(this, 'tools/list', options.signal);
      this.refuseInvalidTool(params);
      return this.sent<T>(method, params, options);
    }
  }

  /**
   * A client must not use a tool whose `x-mcp-header` annotations are invalid (SEP-2243): it
   * cannot send the headers the upstream would check. Nothing is sent; the caller gets the reason.
   */
  private refuseInvalidTool(params: Record<string, unknown> | undefined): void {
    const name = params?.name;
    const fault = typeof name === 'string' ? this.options.headerParams.fault(name) : null;
    if (fault === null) return;
    throw new UpstreamRpcError(
      ProtocolErrorCode.InvalidParams,
      `Tool '${String(name)}' cannot be called: its x-mcp-header annotations are invalid (${fault})`,
    );
  }

  followTasks(taskIds: readonly string[]): Promise<readonly string[]> {
    return this.listens.tasks(taskIds);
  }

  /** The request with its envelope and headers; the answer is judged for the era it speaks. */
  private sent<T extends Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    // A spread with `_meta` replaced, not a rest pattern: V8 copies an object with one key left out
    // slowly (about 0.8 µs for a small parsed object, against next to nothing for a spread).
    const enveloped = { ...params, _meta: this.envelope(params?._meta, options.caller) };
    return this.exchange(method, enveloped, options, {
      headers: requestHeaders(method, enveloped, this.options.headerParams),
      cancels: this.options.pipe,
      settle: (response) => {
        if ('error' in response) this.judge(method, response.error.code, response.error.message);
        const result = resultOf(response);
        if (!this.established) {
          this.established = true;
          this.channel.established(this.options.version);
        }
        return this.complete<T>(method, result, options);
      },
    });
  }

  /**
   * The request's `_meta`, stated once here: what the caller sent (progress token, trace context),
   * then the envelope, which is Portico's: the version, the capabilities of whoever the request is
   * for (as the upstream client narrowed them to what Portico relays), Portico as client, and the
   * log level if one is set.
   */
  private envelope(given: unknown, caller: CallerMeta | undefined): Record<string, unknown> {
    const capabilities = caller?.capabilities ?? this.options.capabilities;
    const level = caller?.logLevel ?? this.logLevel;
    return {
      ...(given !== null && typeof given === 'object' ? given : {}),
      [PROTOCOL_VERSION_META_KEY]: this.options.version,
      [CLIENT_CAPABILITIES_META_KEY]: capabilities,
      [CLIENT_INFO_META_KEY]: PORTICO_CLIENT,
      ...(typeof level === 'string' ? { [LOG_LEVEL_META_KEY]: level } : {}),
    };
  }

  /**
   * A `complete` result (or one without `resultType`, as older servers send) is the answer. An
   * `input_required` one goes to a caller that relays such rounds; any other gets an error.
   */
  private complete<T extends Result>(method: string, result: Result, options: RequestOptions): T {
    const type = (result as { resultType?: unknown }).resultType;
    if (type === undefined || type === 'complete') {
      if (method === 'tools/list' && Array.isArray(result.tools))
        this.options.headerParams.learn(result.tools as unknown[], !result.nextCursor);
      return result as T;
    }
    // A task (the Tasks extension) goes only to a request that stated the extension.
    if (type === 'task' && method === 'tools/call' && declaresTasks(options.caller))
      return result as T;
    if (type === 'input_required') {
      if (options.allowInputRequired) return result as T;
      const asked = Object.values(
        ((result as { inputRequests?: unknown }).inputRequests ?? {}) as Record<
          string,
          { method?: unknown }
        >,
      ).map((input) => String(input?.method));
      throw new UpstreamRpcError(
        ProtocolErrorCode.InternalError,
        `The upstream asked for input (${asked.join(', ') || 'a further round'}), which only an MCP client can give`,
        { resultType: 'input_required', inputRequests: asked },
      );
    }
    throw new UpstreamFailure(
      'protocol',
      `the upstream answered with an unknown resultType: ${JSON.stringify(type).slice(0, 40)}`,
    );
  }

  /**
   * An answer that says the upstream no longer speaks this era: a version it does not serve, no
   * `server/discover`, or a 2025 server asking for its session. The verdict is doubted, and this
   * connection retired, so that the next one probes again.
   */
  private judge(method: string, code: number, message: string): void {
    const doubt =
      code === (UNSUPPORTED_PROTOCOL_VERSION as number) ||
      (code === (ProtocolErrorCode.MethodNotFound as number) && method === 'server/discover') ||
      (code === -32000 && /session|initiali[sz]/i.test(message));
    if (!doubt) return;
    const reason = `the upstream answered ${method} as if it no longer spoke ${this.options.version}: ${code} ${message}`;
    this.options.doubt(reason);
    this.lose(new UpstreamFailure('protocol', reason));
  }

  override async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    // Only stdio carries notifications to a modern upstream (cancellation); HTTP has none to send.
    if (this.options.pipe) await super.notify(method, params);
  }

  override close(): Promise<void> {
    this.closing.abort();
    return super.close();
  }

  /** A message outside any request's stream: a stdio pipe's, or the listen's on stdio. */
  protected override untied(message: JSONRPCNotification): void {
    if (!this.listens.heard(message)) super.untied(message);
  }

  /** Once closing, the end of the channel and its listen is no loss. */
  protected override lose(reason: UpstreamFailure): void {
    if (!this.closing.signal.aborted) super.lose(reason);
  }
}

/** Whether the request's caller stated the Tasks extension (SEP-2663) in its capabilities. */
function declaresTasks(caller: CallerMeta | undefined): boolean {
  const extensions = (caller?.capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}
