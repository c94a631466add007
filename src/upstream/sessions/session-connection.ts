import {
  type Implementation,
  type InitializeResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  LATEST_PROTOCOL_VERSION,
  ProtocolErrorCode,
  type Result,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/client';
import { CallTimer } from '../resilience/call-timer';
import { type Channel, startWithin } from '../transport/channel';
import { classifyUpstreamError, UpstreamFailure, UpstreamRpcError } from '../upstream-error';
import { throughAdmission } from '../resilience/upstream-admission';
import {
  type ConnectOptions,
  PORTICO_CLIENT,
  type RequestOptions,
  type RequestSink,
  type UpstreamAsk,
  type UpstreamConnection,
} from '../upstream-connection';
import { IDEMPOTENT_METHODS, withRetries } from '../resilience/upstream-retry';

interface InFlight {
  request: JSONRPCRequest;
  sink?: RequestSink;
  timer: CallTimer;
}

/**
 * The MCP client of 2025 upstreams. It speaks JSON-RPC over a channel: the handshake, requests with
 * their own timer and abort signal, cancellation, and the upstream's own requests and
 * notifications, which go to the request they are about when the wire says so (its own stream, or
 * its progress token), and otherwise to the connection's listener.
 */
export class SessionConnection implements UpstreamConnection {
  private readonly inFlight = new Map<number, InFlight>();
  private readonly lostReason: Promise<UpstreamFailure>;
  private markLost!: (reason: UpstreamFailure) => void;
  private sequence = 0;
  private ending: Promise<void> | null = null;
  private lostFlag = false;
  private initialized: InitializeResult | null = null;
  private idle: (() => void) | null = null;

  private constructor(
    private readonly channel: Channel,
    private readonly options: ConnectOptions,
  ) {
    this.lostReason = new Promise((resolve) => (this.markLost = resolve));
  }

  /** Opens the channel and runs the handshake; throws an UpstreamFailure. */
  static async open(channel: Channel, options: ConnectOptions): Promise<SessionConnection> {
    const connection = new SessionConnection(channel, options);
    try {
      await startWithin(
        channel.start({
          message: (message) =>
            'id' in message ? connection.answer(message, undefined) : connection.untied(message),
          lost: (reason) => connection.lose(reason),
        }),
        options.timeoutMs,
        (failure) => options.admission?.observeFailure(failure),
      );
      await connection.handshake();
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw connection.classify(error);
    }
    return connection;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.initialized?.capabilities ?? {};
  }

  get serverInfo(): Implementation | undefined {
    return this.initialized?.serverInfo;
  }

  get protocolVersion(): string | undefined {
    return this.initialized?.protocolVersion;
  }

  /** Closed, closing, or lost: new work needs a new connection. */
  get closed(): boolean {
    return this.lostFlag || this.ending !== null;
  }

  /** Resolves with the reason once the connection can no longer be used. */
  get lost(): Promise<UpstreamFailure> {
    return this.lostReason;
  }

  /**
   * Sends a request and resolves with its result. Throws an UpstreamFailure, or an
   * UpstreamRpcError when the upstream answered with a JSON-RPC error of its own.
   */
  async request<T extends Result = Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
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
    if (this.lostFlag) throw await this.lostReason;
    const id = ++this.sequence;
    const request: JSONRPCRequest = { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
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
        onMessage: (message) => {
          timer.restart();
          if ('id' in message) this.answer(message, entry);
          else this.deliver(message, entry);
        },
      });
      if ('error' in response)
        throw new UpstreamRpcError(
          response.error.code,
          response.error.message,
          response.error.data,
        );
      return response.result as T;
    } catch (error) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : error;
      if (abort.signal.aborted && method !== 'initialize') this.cancelUpstream(id, reason);
      throw this.classify(reason);
    } finally {
      timer.stop();
      options.signal?.removeEventListener('abort', onCallerAbort);
      this.inFlight.delete(id);
      if (this.inFlight.size === 0) this.idle?.();
    }
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    try {
      await this.channel.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    } catch (error) {
      throw this.classify(error);
    }
  }

  /**
   * Ends the session, upstream too (best effort), once the requests in flight have finished:
   * closing under them would fail calls that were fine.
   */
  close(): Promise<void> {
    this.ending ??= this.whenIdle().then(() => this.channel.close());
    return this.ending;
  }

  private async handshake(): Promise<void> {
    const result = await this.request<InitializeResult>('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: this.options.capabilities,
      clientInfo: PORTICO_CLIENT,
    });
    if (
      typeof result?.protocolVersion !== 'string' ||
      !SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)
    ) {
      throw new UpstreamFailure(
        'protocol',
        `the upstream's protocol version is not supported: ${String(result?.protocolVersion)}`,
      );
    }
    this.initialized = result;
    this.channel.established(result.protocolVersion);
    await this.notify('notifications/initialized');
    if (this.options.listen !== false) await this.channel.listen();
  }

  /**
   * A message outside any request's exchange: progress goes to the request its token names;
   * everything else (logs, list changes, resource updates) is the connection's listener's, since
   * the wire does not say which request it is about.
   */
  private untied(message: JSONRPCNotification): void {
    if (message.method === 'notifications/progress') {
      const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
      const entry = [...this.inFlight.values()].find(
        (each) => each.sink && progressTokenOf(each.request) === token,
      );
      if (entry) {
        entry.timer.restart();
        this.deliver(message, entry);
        return;
      }
    }
    this.options.listener?.notification?.(message);
  }

  private deliver(message: JSONRPCNotification, entry: InFlight): void {
    if (entry.sink) entry.sink.notify(message);
    else this.options.listener?.notification?.(message);
  }

  /**
   * Answers a request of the upstream's, on behalf of the downstream client: the caller of the
   * request it came with, or outside any request the connection's listener.
   */
  private answer(request: JSONRPCRequest, entry: InFlight | undefined): void {
    const ask: UpstreamAsk = { method: request.method, params: request.params };
    let answer: Promise<Result>;
    if (request.method === 'ping') answer = Promise.resolve({});
    else if (entry?.sink?.ask) answer = entry.sink.ask(ask);
    else if (!entry && this.options.listener?.request) answer = this.options.listener.request(ask);
    else
      answer = Promise.reject(
        new UpstreamRpcError(
          ProtocolErrorCode.MethodNotFound,
          `Method not found: ${request.method}`,
        ),
      );
    entry?.timer.pauseFor(answer);
    void answer
      .then(
        (result): JSONRPCResponse => ({ jsonrpc: '2.0', id: request.id, result }),
        (error: unknown): JSONRPCResponse => ({
          jsonrpc: '2.0',
          id: request.id,
          error: rpcErrorOf(error),
        }),
      )
      .then((response) => this.channel.send(response))
      .catch(() => undefined);
  }

  private cancelUpstream(id: number, reason: unknown): void {
    const text = reason instanceof Error ? reason.message : String(reason);
    void this.notify('notifications/cancelled', { requestId: id, reason: text }).catch(
      () => undefined,
    );
  }

  private lose(reason: UpstreamFailure): void {
    if (this.lostFlag) return;
    this.lostFlag = true;
    const redacted = reason.redacted(this.options.secrets);
    this.markLost(redacted);
    this.options.listener?.lost?.(redacted);
  }

  private whenIdle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  private classify(error: unknown): UpstreamFailure | UpstreamRpcError {
    return classifyUpstreamError(error, this.options.timeoutMs, this.options.secrets);
  }
}

function progressTokenOf(request: JSONRPCRequest): unknown {
  return (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
}

/** The JSON-RPC error a downstream failure becomes when answering an upstream's request. */
function rpcErrorOf(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof UpstreamRpcError)
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  const coded = error as { code?: unknown; message?: unknown };
  if (typeof coded?.code === 'number' && typeof coded.message === 'string')
    return { code: coded.code, message: coded.message };
  return { code: ProtocolErrorCode.InternalError, message: 'The client could not answer' };
}
