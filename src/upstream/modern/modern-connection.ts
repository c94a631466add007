import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type DiscoverResult,
  type Implementation,
  type JSONRPCNotification,
  type JSONRPCRequest,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Result,
  SERVER_INFO_META_KEY,
  type ServerCapabilities,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/client';
import { setTimeout as delay } from 'node:timers/promises';
import { CallTimer } from '../resilience/call-timer';
import { type Channel, startWithin } from '../transport/channel';
import { encodeHeaderValue, headerParamValues, type ToolHeaderParams } from './mcp-param-headers';
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from '../eras/protocol-era';
import {
  type ConnectOptions,
  PORTICO_CLIENT,
  type CallerMeta,
  type RequestOptions,
  type RequestSink,
  type UpstreamConnection,
} from '../upstream-connection';
import { classifyUpstreamError, UpstreamFailure, UpstreamRpcError } from '../upstream-error';
import { throughAdmission } from '../resilience/upstream-admission';
import { listAll } from '../upstream-lists';
import { IDEMPOTENT_METHODS, withRetries } from '../resilience/upstream-retry';

/** How long opening a watch waits for the upstream to acknowledge its listen. */
const LISTEN_ACK_WAIT_MS = 2000;
/** The most resources one connection's listen follows. */
const MAX_RESOURCE_SUBSCRIPTIONS = 100;
/** What a watch listens for: every list change (resources are added as they are subscribed). */
const LISTEN_FILTER = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
};

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

interface InFlight {
  request: JSONRPCRequest;
  sink?: RequestSink;
  timer: CallTimer;
}

/**
 * The MCP client of 2026-07-28 upstreams: no handshake and no session. Each request is its own
 * exchange, carrying the `_meta` envelope (version, the caller's capabilities, Portico as client,
 * the log level) and, on HTTP, the standard headers; progress and logs come back on the request's
 * own stream and go to its sink. An `input_required` round goes back to a caller that answers
 * rounds (allowInputRequired), as it came. It has the call interface of a 2025 session, so the
 * upstream client, sync and the CLI use either without knowing which.
 */
export class ModernConnection implements UpstreamConnection {
  private readonly inFlight = new Map<number, InFlight>();
  private readonly lostReason: Promise<UpstreamFailure>;
  private markLost!: (reason: UpstreamFailure) => void;
  private readonly closing = new AbortController();
  private sequence = 0;
  private ending: Promise<void> | null = null;
  private lostFlag = false;
  private established = false;
  private logLevel: string | null = null;
  private idle: (() => void) | null = null;
  private discovered: DiscoverResult | null;
  private listenHandler: ((message: JSONRPCNotification) => void) | null = null;
  /** The listen open now; aborting it closes its stream. */
  private listening: AbortController | null = null;
  /** What 2025 callers subscribed to on this connection: the listen's resourceSubscriptions. */
  private readonly resourceUris = new Set<string>();

  private constructor(
    private readonly channel: Channel,
    private readonly options: ModernConnectOptions,
  ) {
    this.lostReason = new Promise((resolve) => (this.markLost = resolve));
    this.discovered = options.discover;
  }

  /** Opens the channel; nothing is sent yet. Throws an UpstreamFailure. */
  static async start(channel: Channel, options: ModernConnectOptions): Promise<ModernConnection> {
    const connection = new ModernConnection(channel, options);
    try {
      await startWithin(
        channel.start({
          message: (message) => {
            if (!('id' in message)) connection.untied(message);
          },
          lost: (reason) => connection.lose(reason),
        }),
        options.timeoutMs,
        (failure) => options.admission?.observeFailure(failure),
      );
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw connection.classify(error);
    }
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
    if (this.options.listen === true && this.options.listener?.notification) await this.listen();
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

  get closed(): boolean {
    return this.lostFlag || this.ending !== null;
  }

  get lost(): Promise<UpstreamFailure> {
    return this.lostReason;
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
        await this.subscription(method, params);
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
      return await this.retried<T>(method, params, options);
    } catch (error) {
      // The upstream checks Mcp-Param-* against the tool's schema; learn it once and try again.
      const mismatch = error instanceof UpstreamRpcError && error.code === HEADER_MISMATCH;
      if (!mismatch || method !== 'tools/call' || this.options.headerParams.loaded) throw error;
      await listAll(this, 'tools/list', options.signal);
      this.refuseInvalidTool(params);
      return this.retried<T>(method, params, options);
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

  private retried<T extends Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    return withRetries(
      () => this.attempt<T>(method, params, options),
      this.options.retry,
      IDEMPOTENT_METHODS.has(method),
      () => !this.closed,
      options.signal,
    );
  }

  /** One exchange, through the upstream's admission: its circuit breaker and its cap on calls. */
  private async attempt<T extends Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    if (this.lostFlag) throw await this.lostReason;
    return throughAdmission(this.options.admission, options.signal, () =>
      this.exchange<T>(method, params, options),
    );
  }

  private async exchange<T extends Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<T> {
    const id = ++this.sequence;
    const { _meta: given, ...rest } = params ?? {};
    const request: JSONRPCRequest = {
      jsonrpc: '2.0',
      id,
      method,
      params: { ...rest, _meta: this.envelope(given, options.caller) },
    };
    const abort = new AbortController();
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const timer = new CallTimer(timeoutMs, () =>
      abort.abort(new UpstreamFailure('timeout', `no answer within ${timeoutMs} ms`)),
    );
    const onCallerAbort = () =>
      abort.abort(new UpstreamFailure('cancelled', String(options.signal?.reason ?? 'cancelled')));
    const entry: InFlight = { request, sink: options.sink, timer };
    this.inFlight.set(id, entry);
    if (options.signal?.aborted) onCallerAbort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const response = await this.channel.request(request, {
        signal: abort.signal,
        headers: this.headersOf(method, rest),
        onMessage: (message) => {
          timer.restart();
          if (!('id' in message)) this.deliver(message, entry);
        },
      });
      if ('error' in response) {
        const { code, message, data } = response.error;
        this.judge(method, code, message);
        throw new UpstreamRpcError(code, message, data);
      }
      if (!this.established) {
        this.established = true;
        this.channel.established(this.options.version);
      }
      return this.complete<T>(method, response.result, options);
    } catch (error) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : error;
      if (abort.signal.aborted && this.options.pipe) this.cancelUpstream(id, reason);
      throw this.classify(reason);
    } finally {
      timer.stop();
      options.signal?.removeEventListener('abort', onCallerAbort);
      this.inFlight.delete(id);
      if (this.inFlight.size === 0) this.idle?.();
    }
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

  /** The standard headers of the request, and the tool's `Mcp-Param-*` for a call. */
  private headersOf(method: string, params: Record<string, unknown>): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-method': method };
    const name =
      method === 'tools/call' || method === 'prompts/get'
        ? params.name
        : method === 'resources/read'
          ? params.uri
          : undefined;
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
    if (method === 'tools/call' && typeof name === 'string')
      Object.assign(
        headers,
        headerParamValues(
          this.options.headerParams.of(name),
          params.arguments as Record<string, unknown> | undefined,
        ),
      );
    return headers;
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

  /**
   * A listen for list changes and the resources subscribed on this connection, held until the
   * connection closes: it carries only the notifications it asked for. A listen's filter cannot
   * change, so a new one is opened (and acknowledged) before the one it replaces is closed. An
   * upstream that refuses it has nothing to say outside requests; one that ends it (or loses it)
   * loses the connection, and whoever holds it listens again.
   */
  private async listen(): Promise<void> {
    const id = ++this.sequence;
    const previous = this.listening;
    const stop = new AbortController();
    this.listening = stop;
    let acknowledged!: () => void;
    const ack = new Promise<void>((resolve) => (acknowledged = resolve));
    this.listenHandler = (message) => {
      if (message.method === 'notifications/subscriptions/acknowledged') acknowledged();
      else this.options.listener?.notification?.(message);
    };
    const notifications = {
      ...(this.options.listen === true ? LISTEN_FILTER : {}),
      ...(this.resourceUris.size > 0 ? { resourceSubscriptions: [...this.resourceUris] } : {}),
    };
    const request: JSONRPCRequest = {
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications, _meta: this.envelope(undefined, undefined) },
    };
    const replaced = () => this.listening !== stop;
    const ended = this.channel
      .request(request, {
        signal: AbortSignal.any([this.closing.signal, stop.signal]),
        longLived: true,
        headers: { 'mcp-method': 'subscriptions/listen' },
        onMessage: (message) => {
          if ('id' in message) return;
          // The listen it replaces still hears list changes until then; resource updates too.
          if (replaced()) this.options.listener?.notification?.(message);
          else this.listenHandler?.(message);
        },
      })
      .then(
        (response) => {
          if ('error' in response || replaced()) return;
          this.lose(new UpstreamFailure('unreachable', 'the upstream ended the listen'));
        },
        (error: unknown) => {
          if (!this.closing.signal.aborted && !replaced()) this.lose(this.failureOf(error));
        },
      )
      .finally(acknowledged);
    await Promise.race([ack, ended, delay(LISTEN_ACK_WAIT_MS, undefined, { ref: false })]);
    previous?.abort();
  }

  /**
   * `resources/subscribe` and `resources/unsubscribe` of a 2025 caller: on this era they are the
   * listen's `resourceSubscriptions`, so the listen is opened again with the new set.
   */
  private async subscription(
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    const uri = params?.uri;
    if (typeof uri !== 'string')
      throw new UpstreamRpcError(ProtocolErrorCode.InvalidParams, `${method} needs a uri`);
    if (!this.discovered?.capabilities.resources?.subscribe)
      throw new UpstreamRpcError(
        ProtocolErrorCode.MethodNotFound,
        'The upstream does not offer resource subscriptions',
      );
    if (method === 'resources/unsubscribe') {
      if (!this.resourceUris.delete(uri)) return;
    } else {
      if (this.resourceUris.has(uri)) return;
      if (this.resourceUris.size >= MAX_RESOURCE_SUBSCRIPTIONS)
        throw new UpstreamRpcError(
          ProtocolErrorCode.InvalidRequest,
          `At most ${MAX_RESOURCE_SUBSCRIPTIONS} resources are followed on one upstream connection`,
        );
      this.resourceUris.add(uri);
    }
    if (this.resourceUris.size > 0 || this.options.listen === true) await this.listen();
    else {
      this.listening?.abort();
      this.listening = null;
    }
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    // Only stdio carries notifications to a modern upstream (cancellation); HTTP has none to send.
    if (!this.options.pipe) return;
    try {
      await this.channel.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    } catch (error) {
      throw this.classify(error);
    }
  }

  close(): Promise<void> {
    this.closing.abort();
    this.ending ??= this.whenIdle().then(() => this.channel.close());
    return this.ending;
  }

  /** A message outside any request's stream: a stdio pipe's, or the listen's on stdio. */
  private untied(message: JSONRPCNotification): void {
    const meta = message.params?._meta;
    if (
      meta?.[SUBSCRIPTION_ID_META_KEY] !== undefined ||
      message.method.startsWith('notifications/subscriptions/')
    ) {
      this.listenHandler?.(message);
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
      const owner = [...this.inFlight.values()].find(
        (entry) =>
          entry.sink &&
          (entry.request.params?._meta as { progressToken?: unknown } | undefined)
            ?.progressToken === token,
      );
      if (owner) {
        owner.timer.restart();
        this.deliver(message, owner);
        return;
      }
    }
    this.options.listener?.notification?.(message);
  }

  private deliver(message: JSONRPCNotification, entry: InFlight): void {
    if (entry.sink) entry.sink.notify(message);
    else this.options.listener?.notification?.(message);
  }

  private cancelUpstream(id: number, reason: unknown): void {
    const text = reason instanceof Error ? reason.message : String(reason);
    void this.notify('notifications/cancelled', { requestId: id, reason: text }).catch(
      () => undefined,
    );
  }

  private lose(reason: UpstreamFailure): void {
    if (this.lostFlag || this.closing.signal.aborted) return;
    this.lostFlag = true;
    const redacted = reason.redacted(this.options.secrets);
    this.markLost(redacted);
    this.options.listener?.lost?.(redacted);
  }

  private whenIdle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  private failureOf(error: unknown): UpstreamFailure {
    const classified = this.classify(error);
    return classified instanceof UpstreamFailure
      ? classified
      : new UpstreamFailure('protocol', `${classified.code} ${classified.message}`);
  }

  private classify(error: unknown): UpstreamFailure | UpstreamRpcError {
    return classifyUpstreamError(error, this.options.timeoutMs, this.options.secrets);
  }
}
