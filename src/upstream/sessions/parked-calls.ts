import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type ClientCapabilities,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/client';
import { AppConfig } from '../../config/app-config';
import { EventBus, type PorticoEvent } from '../../events/event-bus';
import { ReplicaId } from '../../events/replica-id';
import { declaresCapability, requiredCapability } from '../client-capabilities';
import { type RequestSink, type UpstreamAsk } from '../upstream-connection';
import { UpstreamFailure, UpstreamRpcError } from '../upstream-error';

/** Input requests that arrive this close together go to the client as one round. */
const ROUND_GATHER_MS = 10;
/** Calls one replica holds for their clients' answers at most (each holds an upstream call). */
const MAX_PARKED_CALLS = 10_000;
/** How long a retry waits for the replica that holds its call to take it. */
const OWNER_TAKES_WITHIN_MS = 5_000;
/** The error a request gets when the capability an input needs was not declared (2026-07-28). */
const MISSING_CLIENT_CAPABILITY = -32021;
/** `pk1.<replica>.<id>`: the state a parked call's rounds carry, inside the core's sealed one. */
export const PARKED_STATE = 'pk1.';
const GONE =
  'The call this continues is no longer waiting (it expired, was cancelled, or its replica stopped)';

/** Whoever waits for a parked call's next round or result: the request that asked, or a retry. */
interface Waiter {
  notify(notification: JSONRPCNotification): void;
  settle(outcome: Outcome): void;
}

type Outcome = { result: Result } | { error: Error };

/**
 * One call whose 2025 upstream asks its client for input mid-call. The upstream call keeps running
 * (held on this replica); its requests go to the client as an `input_required` round, and the
 * client's retry, on whichever replica it lands, answers them here and waits for the result or
 * the next round. Nothing of it reaches another client: the call is its own caller on the
 * upstream connection.
 */
class ParkedCall {
  readonly id = randomUUID();
  /** The upstream's requests the client has not answered, by the key the round gave them. */
  private readonly pending = new Map<string, (answer: Result) => void>();
  /** Asked since the last round went out, by key. */
  private fresh: Record<string, UpstreamAsk> = {};
  private presented: string[] = [];
  private sequence = 0;
  private gathering: NodeJS.Timeout | null = null;
  private expiry: NodeJS.Timeout | null = null;
  private settled: Outcome | null = null;
  private held = false;

  constructor(
    private readonly calls: ParkedCalls,
    private readonly capabilities: ClientCapabilities,
    private waiter: Waiter | null,
    /** Cancels the upstream call. */
    private readonly abort: AbortController,
  ) {}

  /** The client went away, cancelled a retry, or the round expired. */
  cancel(reason: string): void {
    this.clearExpiry();
    this.stop(reason);
    this.calls.forget(this);
  }

  /**
   * Ends the upstream call: it is cancelled upstream, and its open requests of the client are
   * dropped unanswered (an answer could beat the cancellation there and finish the call).
   */
  private stop(reason: string): void {
    if (this.gathering) clearTimeout(this.gathering);
    this.gathering = null;
    this.abort.abort(reason);
    this.pending.clear();
  }

  notify(notification: JSONRPCNotification): void {
    this.waiter?.notify(notification);
  }

  /** An upstream's request of the client: the next round asks it. */
  ask(asked: UpstreamAsk): Promise<Result> {
    if (this.settled || this.abort.signal.aborted)
      return Promise.reject(
        new UpstreamRpcError(ProtocolErrorCode.InternalError, 'The call has ended'),
      );
    const required = requiredCapability(asked);
    if (!required || !declaresCapability(this.capabilities, required)) {
      const error = new UpstreamRpcError(
        MISSING_CLIENT_CAPABILITY,
        `The upstream asked for ${asked.method}, which this request's client capabilities do not declare`,
        { requiredCapabilities: required ?? {} },
      );
      this.finish({ error });
      this.stop(error.message);
      return Promise.reject(error);
    }
    const key = `input_${++this.sequence}`;
    const params = { ...asked.params };
    // 2025-11-25 leaves the mode of a form elicitation out; 2026-07-28 names it.
    if (asked.method === 'elicitation/create') params.mode ??= 'form';
    this.fresh[key] = { method: asked.method, params };
    this.gathering ??= setTimeout(() => this.flush(), ROUND_GATHER_MS);
    return new Promise((resolve) => this.pending.set(key, resolve));
  }

  /** The upstream's answer to the call: to whoever waits now, or to the next retry. */
  finish(outcome: Outcome): void {
    if (this.settled) return;
    this.settled = outcome;
    if (this.gathering) clearTimeout(this.gathering);
    this.gathering = null;
    if (this.waiter) this.deliver(this.waiter);
  }

  /**
   * A retry: its answers reach the upstream's requests, and the waiter gets what comes next.
   * Refused (-32602) when it leaves out an answer the round asked for.
   */
  retry(inputResponses: unknown, waiter: Waiter): void {
    if (this.waiter) return waiter.settle(invalid('This input round was already answered'));
    if (this.settled) return this.deliver(waiter);
    const responses =
      inputResponses !== null && typeof inputResponses === 'object'
        ? (inputResponses as Record<string, unknown>)
        : {};
    const missing = this.presented.filter((key) => !(key in responses));
    if (missing.length > 0)
      return waiter.settle(invalid(`inputResponses has no answer for ${missing.join(', ')}`));
    this.clearExpiry();
    this.waiter = waiter;
    for (const key of this.presented) {
      this.pending.get(key)?.(responses[key] as Result);
      this.pending.delete(key);
    }
    this.presented = [];
    if (Object.keys(this.fresh).length > 0 && !this.gathering) this.flush();
  }

  private deliver(waiter: Waiter): void {
    this.clearExpiry();
    this.waiter = null;
    this.calls.forget(this);
    waiter.settle(this.settled!);
  }

  /** The round gathered so far goes to the waiter, under a state that names this call here. */
  private flush(): void {
    this.gathering = null;
    const waiter = this.waiter;
    if (!waiter || this.settled) return;
    const inputRequests = this.fresh;
    this.fresh = {};
    this.presented = Object.keys(inputRequests);
    this.waiter = null;
    if (!this.held) {
      if (!this.calls.hold(this)) {
        this.stop('this replica holds as many parked calls as it may');
        return waiter.settle({
          error: new UpstreamRpcError(
            ProtocolErrorCode.InternalError,
            'The upstream asked for input, and this replica holds as many calls waiting for input as it may; try again later',
          ),
        });
      }
      this.held = true;
    }
    this.expiry = setTimeout(
      () => this.cancel('the input round expired before the client answered it'),
      this.calls.ttlMs,
    );
    this.expiry.unref();
    waiter.settle({
      result: {
        resultType: 'input_required',
        inputRequests,
        requestState: this.calls.stateOf(this),
      },
    });
  }

  private clearExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
  }
}

/**
 * The 2025 adapter's calls parked on this replica, and the way to them from any other. A call
 * whose 2025 upstream asks its client something mid-call (sampling, elicitation, roots) answers
 * with an `input_required` round whose state names the call here, as a 2026-07-28 upstream's
 * round would carry its own; the retry comes back through the same upstream client, and one that
 * lands elsewhere goes over the bus to the replica holding the call, which answers over the bus.
 */
@Injectable()
export class ParkedCalls implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ParkedCalls.name);
  private readonly held = new Map<string, ParkedCall>();
  /** Retries served here for calls parked elsewhere, by ticket. */
  private readonly remote = new Map<string, { waiter: Waiter; taken: boolean }>();
  private unsubscribe?: () => void;
  readonly ttlMs: number;

  constructor(
    config: AppConfig,
    private readonly bus: EventBus,
    private readonly replica: ReplicaId,
  ) {
    this.ttlMs = config.inputRoundTtlSeconds * 1000;
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => this.receive(event));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    for (const call of [...this.held.values()]) call.cancel('the replica is stopping');
  }

  /** How many calls wait here for their clients' answers. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Runs one request whose 2025 upstream may ask its client mid-call (`exchange` gets the sink to
   * make it with): its result, or the first round of what the upstream asks, the call parked here
   * meanwhile. Until it parks, the request is as any other: `signal` cancels it.
   */
  run(
    exchange: (sink: RequestSink, signal: AbortSignal) => Promise<Result>,
    sink: RequestSink,
    signal: AbortSignal | undefined,
    capabilities: ClientCapabilities,
  ): Promise<Result> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        notify: (notification) => sink.notify(notification),
        settle: (outcome) =>
          'result' in outcome ? resolve(outcome.result) : reject(outcome.error),
      };
      const abort = new AbortController();
      let parked: ParkedCall | null = null;
      const park = () => (parked ??= new ParkedCall(this, capabilities, waiter, abort));
      // Parked or not, the request that started it may still cancel it (a 2025 session's client
      // cancelling while it is asked); a 2026-07-28 request's signal is spent once answered.
      const cancel = () =>
        parked ? parked.cancel(String(signal?.reason)) : abort.abort(signal?.reason);
      if (signal?.aborted) cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      exchange(
        {
          notify: (notification) => (parked ?? waiter).notify(notification),
          ask: (asked) => park().ask(asked),
        },
        abort.signal,
      ).then(
        (result) => (parked ? parked.finish({ result }) : waiter.settle({ result })),
        (reason: unknown) => {
          const error = reason instanceof Error ? reason : new Error(String(reason));
          if (parked) parked.finish({ error });
          else waiter.settle({ error });
        },
      );
    });
  }

  /** A retry of a parked call, wherever it is held: its next round, or its result. */
  resume(
    state: string,
    inputResponses: unknown,
    sink: RequestSink,
    signal: AbortSignal | undefined,
  ): Promise<Result> {
    const [replica, parkedId] = state.slice(PARKED_STATE.length).split('.');
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        notify: (notification) => sink.notify(notification),
        settle: (outcome) =>
          'result' in outcome ? resolve(outcome.result) : reject(outcome.error),
      };
      if (!replica || !parkedId) return waiter.settle({ error: gone() });
      if (replica === this.replica.value) {
        const call = this.held.get(parkedId);
        if (!call) return waiter.settle({ error: gone() });
        signal?.addEventListener('abort', () => call.cancel('the client closed the retry'), {
          once: true,
        });
        call.retry(inputResponses, waiter);
        return;
      }
      this.retryElsewhere(replica, parkedId, inputResponses, waiter, signal);
    });
  }

  stateOf(call: ParkedCall): string {
    return `${PARKED_STATE}${this.replica.value}.${call.id}`;
  }

  /** False when this replica holds MAX_PARKED_CALLS already. */
  hold(call: ParkedCall): boolean {
    if (this.held.size >= MAX_PARKED_CALLS) return false;
    this.held.set(call.id, call);
    return true;
  }

  forget(call: ParkedCall): void {
    this.held.delete(call.id);
  }

  private retryElsewhere(
    replica: string,
    parkedId: string,
    inputResponses: unknown,
    waiter: Waiter,
    signal: AbortSignal | undefined,
  ): void {
    const ticket = randomUUID();
    const entry = { waiter, taken: false };
    this.remote.set(ticket, entry);
    const toOwner = (extra: { inputResponses?: Record<string, unknown> }) =>
      this.publish({
        type: 'mcp.parked.to-owner',
        replica,
        parkedId,
        ticket,
        from: this.replica.value,
        requestId: 0,
        ...extra,
      });
    const untaken = setTimeout(() => {
      if (entry.taken || this.remote.get(ticket) !== entry) return;
      this.remote.delete(ticket);
      waiter.settle({ error: gone() });
    }, OWNER_TAKES_WITHIN_MS);
    untaken.unref();
    signal?.addEventListener(
      'abort',
      () => {
        if (this.remote.delete(ticket)) toOwner({});
      },
      { once: true },
    );
    toOwner({ inputResponses: (inputResponses ?? {}) as Record<string, unknown> });
  }

  private receive(event: PorticoEvent): void {
    if (event.type === 'mcp.parked.to-owner' && event.replica === this.replica.value) {
      const call = this.held.get(event.parkedId);
      const reply = (message?: JSONRPCMessage, final?: boolean) =>
        this.publish({
          type: 'mcp.parked.to-retry',
          replica: event.from,
          ticket: event.ticket,
          ...(message ? { message } : {}),
          ...(final ? { final } : {}),
        });
      if (!call) return reply(responseOf({ error: gone() }), true);
      if (!event.inputResponses) return call.cancel('the client closed the retry');
      reply();
      call.retry(event.inputResponses, {
        notify: (notification) => reply(notification),
        settle: (outcome) => reply(responseOf(outcome), true),
      });
    }
    if (event.type === 'mcp.parked.to-retry' && event.replica === this.replica.value) {
      const entry = this.remote.get(event.ticket);
      if (!entry) return;
      entry.taken = true;
      if (!event.message) return;
      if (!event.final) return entry.waiter.notify(event.message as JSONRPCNotification);
      this.remote.delete(event.ticket);
      entry.waiter.settle(outcomeOf(event.message as JSONRPCResponse));
    }
  }

  private publish(event: PorticoEvent): void {
    void this.bus
      .publish(event)
      .catch((error: unknown) =>
        this.logger.warn(`Could not relay a parked call's message: ${String(error)}`),
      );
  }
}

function invalid(message: string): Outcome {
  return { error: new UpstreamRpcError(ProtocolErrorCode.InvalidParams, message) };
}

/** The call the state names is no longer held: expired, cancelled, or its replica gone. */
function gone(): UpstreamRpcError {
  return new UpstreamRpcError(
    ProtocolErrorCode.InvalidParams,
    `Invalid or expired requestState: ${GONE}`,
  );
}

/** An outcome as it crosses the bus: a JSON-RPC response. */
function responseOf(outcome: Outcome): JSONRPCResponse {
  if ('result' in outcome) return { jsonrpc: '2.0', id: 0, result: outcome.result };
  const { error } = outcome;
  if (error instanceof UpstreamRpcError)
    return {
      jsonrpc: '2.0',
      id: 0,
      error: {
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    };
  const failure =
    error instanceof UpstreamFailure ? error : new UpstreamFailure('internal', String(error));
  return {
    jsonrpc: '2.0',
    id: 0,
    error: {
      code: ProtocolErrorCode.InternalError,
      message: failure.message,
      data: { failure: failure.kind },
    },
  };
}

function outcomeOf(response: JSONRPCResponse): Outcome {
  if ('result' in response) return { result: response.result };
  const { code, message, data } = response.error;
  const failure = (data as { failure?: unknown } | undefined)?.failure;
  if (typeof failure === 'string')
    return { error: new UpstreamFailure(failure as UpstreamFailure['kind'], message) };
  return { error: new UpstreamRpcError(code, message, data) };
}
