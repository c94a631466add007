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
import { CallAbort } from '../../common/call-abort';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { EventBus, type PorticoEvent } from '../../events/event-bus';
import { ReplicaId } from '../../events/replica-id';
import { type CallParking, type RequestSink } from '../upstream-connection';
import { UpstreamFailure, UpstreamRpcError } from '../upstream-error';
import { type CallHolder, type Outcome, ParkedCall, type Waiter } from './parked-call';

/** Calls one replica holds for their clients' answers at most (each holds an upstream call). */
const MAX_PARKED_CALLS = 10_000;
/** How long a retry waits for the replica that holds its call to take it. */
const OWNER_TAKES_WITHIN_MS = 5_000;
/** `pk1.<replica>.<id>`: the state a parked call's rounds carry, inside the core's sealed one. */
export const PARKED_STATE = 'pk1.';

/**
 * The 2025 adapter's calls parked on this replica, and the way to them from any other. A call
 * whose 2025 upstream asks its client something mid-call (sampling, elicitation, roots) answers
 * with an `input_required` round whose state names the call here, as a 2026-07-28 upstream's
 * round would carry its own; the retry comes back through the same upstream client, and one that
 * lands elsewhere goes over the bus to the replica holding the call, which answers over the bus.
 */
@Injectable()
export class ParkedCalls implements OnModuleInit, OnModuleDestroy, CallHolder, CallParking {
  private readonly logger = new Logger(ParkedCalls.name);
  private readonly held = new Map<string, ParkedCall>();
  /** Retries served here for calls parked elsewhere, by ticket. */
  private readonly remote = new Map<string, { waiter: Waiter; taken: boolean }>();
  private unsubscribe?: () => void;
  readonly ttlMs: number;

  constructor(
    config: UpstreamSettings,
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
    return waiting(sink, (waiter) => {
      const abort = new CallAbort();
      let parked: ParkedCall | null = null;
      const park = () => (parked ??= new ParkedCall(this, capabilities, waiter, abort));
      // Parked, the request that started it may still cancel it (a 2025 session's client
      // cancelling while it is asked); answered unparked, its signal lets go of the call.
      const cancel = () =>
        parked ? parked.cancel(String(signal?.reason)) : abort.abort(signal?.reason);
      const settle = (outcome: Outcome) => {
        if (parked) return parked.finish(outcome);
        signal?.removeEventListener('abort', cancel);
        waiter.settle(outcome);
      };
      if (signal?.aborted) cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      exchange(
        {
          notify: (notification) => (parked ?? waiter).notify(notification),
          ask: (asked) => park().ask(asked),
        },
        abort.signal,
      ).then(
        (result) => settle({ result }),
        (reason: unknown) =>
          settle({ error: reason instanceof Error ? reason : new Error(String(reason)) }),
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
    return waiting(sink, (waiter) => {
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

/** The request waiting on `start`'s waiter: notifications go to its sink, the outcome is its answer. */
function waiting(sink: RequestSink, start: (waiter: Waiter) => void): Promise<Result> {
  return new Promise((resolve, reject) =>
    start({
      notify: (notification) => sink.notify(notification),
      settle: (outcome) => ('result' in outcome ? resolve(outcome.result) : reject(outcome.error)),
    }),
  );
}

/** The call the state names is no longer held: expired, cancelled, or its replica gone. */
function gone(): UpstreamRpcError {
  return new UpstreamRpcError(
    ProtocolErrorCode.InvalidParams,
    'Invalid or expired requestState: The call this continues is no longer waiting (it expired, was cancelled, or its replica stopped)',
  );
}

/** An outcome as it crosses the bus: a JSON-RPC response, a failure's kind in its data. */
function responseOf(outcome: Outcome): JSONRPCResponse {
  if ('result' in outcome) return { jsonrpc: '2.0', id: 0, result: outcome.result };
  const { error } = outcome;
  if (error instanceof UpstreamRpcError) {
    const { code, message, data } = error;
    return {
      jsonrpc: '2.0',
      id: 0,
      error: { code, message, ...(data === undefined ? {} : { data }) },
    };
  }
  const failure =
    error instanceof UpstreamFailure ? error : new UpstreamFailure('internal', String(error));
  const { message, kind } = failure;
  const code = ProtocolErrorCode.InternalError;
  return { jsonrpc: '2.0', id: 0, error: { code, message, data: { failure: kind } } };
}

function outcomeOf(response: JSONRPCResponse): Outcome {
  if ('result' in response) return { result: response.result };
  const { code, message, data } = response.error;
  const failure = (data as { failure?: unknown } | undefined)?.failure;
  if (typeof failure === 'string')
    return { error: new UpstreamFailure(failure as UpstreamFailure['kind'], message) };
  return { error: new UpstreamRpcError(code, message, data) };
}
