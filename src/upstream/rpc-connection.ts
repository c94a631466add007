import {
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Result,
} from '@modelcontextprotocol/client';
import { CallTimer } from './resilience/call-timer';
import { type Channel, type ChannelListener, startWithin } from './transport/channel';
import { type ConnectOptions, type RequestOptions, type RequestSink } from './upstream-connection';
import {
  classifyUpstreamError,
  UpstreamFailure,
  upstreamFailure,
  UpstreamRpcError,
} from './upstream-error';
import { type Admission, type AdmissionPass } from './resilience/concurrency-limiter';
import { IDEMPOTENT_METHODS, withRetries } from './resilience/upstream-retry';
import { CallAbort } from '../common/call-abort';
import { errorMessage } from '../common/error-message';
import { isJsonObject } from '../common/json-value';

/** A request sent and not yet answered. */
export interface InFlight {
  request: JSONRPCRequest;
  sink?: RequestSink;
  timer: CallTimer;
}

/** What an era makes of one request's exchange. */
export interface ExchangeRules<T> {
  /** 2026-07-28 request headers; only HTTP sends them. */
  headers?: Record<string, string>;
  /** Whether a request given up on is cancelled upstream with `notifications/cancelled`. */
  cancels: boolean;
  /** A request of the upstream's on this request's own stream; absent: it is ignored. */
  answer?(request: JSONRPCRequest, entry: InFlight): void;
  /** The result the response is, or the error it is. */
  settle(response: JSONRPCResponse): T;
}

/**
 * What an upstream connection of either era does with its requests: their ids, retries and
 * admission, each one's timer and caller's abort, cancellation upstream, the messages the upstream
 * sends about them, and the connection's end (lost, or closed once no request is in flight). Each
 * era's connection adds what it says on the wire, as the SDK's Client adds to its Protocol.
 */
export abstract class RpcConnection {
  readonly lost: Promise<UpstreamFailure>;
  private markLost!: (reason: UpstreamFailure) => void;
  private readonly inFlight = new Map<number, InFlight>();
  private sequence = 0;
  private ending: Promise<void> | null = null;
  private lostFlag = false;
  private idle: (() => void) | null = null;

  protected constructor(
    protected readonly channel: Channel,
    protected readonly options: ConnectOptions,
  ) {
    this.lost = new Promise((resolve) => (this.markLost = resolve));
  }

  /** Opens the channel, then `ready`; a failure closes the channel and is thrown classified. */
  protected async startChannel(
    listener: ChannelListener,
    ready?: () => Promise<void>,
  ): Promise<void> {
    try {
      await startWithin(this.channel.start(listener), this.options.timeoutMs, (failure) =>
        this.options.admission?.observeFailure(failure),
      );
      await ready?.();
    } catch (error) {
      await this.channel.close().catch(() => undefined);
      throw this.classify(error);
    }
  }

  /** Closed, closing, or lost: new work needs a new connection. */
  get closed(): boolean {
    return this.lostFlag || this.ending !== null;
  }

  protected nextId(): number {
    return ++this.sequence;
  }

  /**
   * Sends a request, retried when it is idempotent, each attempt through the upstream's admission
   * (its circuit breaker and its cap on calls), and resolves as `rules` settle its response.
   * Throws an UpstreamFailure, or an UpstreamRpcError when the upstream answered with one.
   */
  protected exchange<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    rules: ExchangeRules<T>,
  ): Promise<T> {
    const attempt = async () => {
      if (this.lostFlag) throw await this.lost;
      return throughAdmission(this.options.admission, options.signal, () =>
        this.once(method, params, options, rules),
      );
    };
    return withRetries(
      attempt,
      this.options.retry,
      IDEMPOTENT_METHODS.has(method),
      () => !this.closed,
      options.signal,
    );
  }

  private async once<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    rules: ExchangeRules<T>,
  ): Promise<T> {
    if (this.lostFlag) throw await this.lost;
    const id = this.nextId();
    const request: JSONRPCRequest = { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
    const abort = new CallAbort();
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const limits = { timeoutMs, maxMs: this.options.callMaxMs };
    const timer = new CallTimer(limits, (failure) => abort.abort(failure));
    const onCallerAbort = () =>
      abort.abort(new UpstreamFailure('cancelled', String(options.signal?.reason ?? 'cancelled')));
    const entry: InFlight = { request, sink: options.sink, timer };
    this.inFlight.set(id, entry);
    if (options.signal?.aborted) onCallerAbort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const response = await this.channel.request(request, {
        signal: abort.signal,
        headers: rules.headers,
        onMessage: (message) => {
          timer.restart();
          if (!('id' in message)) this.deliver(message, entry);
          else rules.answer?.(message, entry);
        },
      });
      return rules.settle(response);
    } catch (error) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : error;
      if (abort.signal.aborted && rules.cancels) this.cancelUpstream(id, reason);
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
   * A message outside any request's exchange: progress goes to the request its token names;
   * everything else (logs, list changes, resource updates) is the connection's listener's, since
   * the wire does not say which request it is about.
   */
  protected untied(message: JSONRPCNotification): void {
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

  /**
   * Ends the connection, upstream too (best effort), once the requests in flight have finished:
   * closing under them would fail calls that were fine.
   */
  close(): Promise<void> {
    this.ending ??= this.whenIdle().then(() => this.channel.close());
    return this.ending;
  }

  protected lose(reason: UpstreamFailure): void {
    if (this.lostFlag) return;
    this.lostFlag = true;
    const redacted = reason.redacted(this.options.secrets);
    this.markLost(redacted);
    this.options.listener?.lost?.(redacted);
  }

  protected classify(error: unknown): UpstreamFailure | UpstreamRpcError {
    return classifyUpstreamError(error, this.options.timeoutMs, this.options.secrets);
  }

  /** As `classify`, for a failure that is only reported: an RPC error becomes its message. */
  protected failureOf(error: unknown): UpstreamFailure {
    return upstreamFailure(error, this.options.timeoutMs, this.options.secrets);
  }

  private deliver(message: JSONRPCNotification, entry: InFlight): void {
    if (entry.sink) entry.sink.notify(message);
    else this.options.listener?.notification?.(message);
  }

  private cancelUpstream(id: number, reason: unknown): void {
    const text = errorMessage(reason);
    void this.notify('notifications/cancelled', { requestId: id, reason: text }).catch(
      () => undefined,
    );
  }

  private whenIdle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }
}

/**
 * The result of a response, or its JSON-RPC error thrown as the upstream's own. Both are objects
 * of a shape (an error's code an integer, its message a string): anything else is the upstream's
 * protocol failure, refused here for both eras before anything reads it.
 */
export function resultOf(response: JSONRPCResponse): Result {
  if ('error' in response) {
    const error: unknown = response.error;
    if (!isJsonObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      throw new UpstreamFailure('protocol', 'the upstream answered with a malformed error');
    throw new UpstreamRpcError(error.code as number, error.message, error.data);
  }
  const result: unknown = response.result;
  if (!isJsonObject(result))
    throw new UpstreamFailure(
      'protocol',
      'the upstream answered with a result that is not an object',
    );
  return result;
}

function progressTokenOf(request: JSONRPCRequest): unknown {
  return (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
}

/**
 * Runs one exchange through the upstream's admission, when it has one: its circuit breaker and its
 * cap on calls. The pass is settled with the exchange's outcome; a wait for a slot that the caller
 * abandoned is a cancellation.
 */
async function throughAdmission<T>(
  admission: Admission | undefined,
  signal: AbortSignal | undefined,
  exchange: () => Promise<T>,
): Promise<T> {
  let pass: AdmissionPass | undefined;
  try {
    pass = await admission?.enter(signal);
  } catch (error) {
    if (error instanceof UpstreamFailure) throw error;
    throw new UpstreamFailure('cancelled', String(signal?.reason ?? 'cancelled'));
  }
  try {
    const result = await exchange();
    pass?.settle();
    return result;
  } catch (error) {
    pass?.settle(error);
    throw error;
  }
}
