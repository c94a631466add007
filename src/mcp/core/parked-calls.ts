import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type ClientCapabilities,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  ProtocolErrorCode,
  type RequestId,
  type Result,
} from '@modelcontextprotocol/server';
import { AppConfig } from '../../config/app-config';
import { EventBus, type PorticoEvent } from '../../events/event-bus';
import { ReplicaId } from '../../events/replica-id';
import { type UpstreamAsk } from '../../upstream/upstream-connection';
import { type Principal } from '../../auth/principal';
import { declaresCapability, requiredCapability } from '../protocol/client-capabilities';
import {
  errorResponse,
  invalidParams,
  MISSING_CLIENT_CAPABILITY,
  RpcError,
} from '../protocol/mcp-errors';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import {
  INVALID_REQUEST_STATE,
  type RequestStateBinding,
  RequestStateSealer,
} from './request-state-seal';

/** Input requests that arrive this close together go to the client as one round. */
const ROUND_GATHER_MS = 10;
/** Calls one replica holds for their clients' answers at most (each holds an upstream call). */
const MAX_PARKED_CALLS = 10_000;
/** How long a retry waits for the replica that holds its call to take it. */
const OWNER_TAKES_WITHIN_MS = 5_000;
/** MCP's URL elicitation error (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;
/** URL elicitations one round carries at most. */
const MAX_URL_ELICITATIONS = 16;

/** What a call's answer goes to while it is waited for: a local stream, or a retry elsewhere. */
interface Waiter {
  notify(notification: JSONRPCNotification): void;
  settle(response: JSONRPCResponse): void;
  /** The retry's request id: the answer goes out under it. */
  requestId: RequestId;
}

/**
 * One 2026-07-28 call whose 2025 upstream asks its client for input mid-call. The upstream call
 * keeps running (held on this replica); its requests go to the client as an `input_required`
 * round, and the client's retry, on whichever replica it lands, answers them here and waits for
 * the result or the next round. Nothing of it reaches another client: each call is its own
 * caller on the upstream connection.
 */
export class ParkedCall {
  readonly id = randomUUID();
  private readonly abort = new AbortController();
  /** The upstream's requests the client has not answered, by the key the round gave them. */
  private readonly pending = new Map<string, (answer: Result) => void>();
  /** Asked since the last round went out, by key. */
  private fresh: Record<string, { method: string; params?: Record<string, unknown> }> = {};
  private presented: string[] = [];
  private sequence = 0;
  private gathering: NodeJS.Timeout | null = null;
  private expiry: NodeJS.Timeout | null = null;
  private settled: JSONRPCResponse | null = null;
  private parked = false;

  constructor(
    private readonly calls: ParkedCalls,
    private readonly binding: RequestStateBinding,
    private readonly capabilities: ClientCapabilities,
    private waiter: Waiter | null,
  ) {}

  /** The call's own signal: the first request's stream, then the retries' and the expiry. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** The client went away (before a round), or cancelled a retry, or the round expired. */
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
      return Promise.reject(new RpcError(ProtocolErrorCode.InternalError, 'The call has ended'));
    const required = requiredCapability(asked);
    if (!required || !declaresCapability(this.capabilities, required)) {
      const error = new RpcError(
        MISSING_CLIENT_CAPABILITY,
        `The upstream asked for ${asked.method}, which this request's client capabilities do not declare`,
        { requiredCapabilities: required ?? {} },
      );
      this.finish(errorResponse(0, error));
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

  /**
   * The core's answer to the call: the result or an error, to whoever waits now, or to the next
   * retry when the client holds a round (until the round expires).
   */
  finish(response: JSONRPCResponse): void {
    if (this.settled) return;
    this.settled =
      urlRound(response, this.capabilities, () => this.calls.sealRerun(this.binding)) ?? response;
    if (this.gathering) clearTimeout(this.gathering);
    this.gathering = null;
    if (this.waiter) this.deliver(this.waiter);
  }

  /**
   * A retry: its answers reach the upstream's requests, and the waiter gets what comes next.
   * Refused (-32602) when it leaves out an answer the round asked for.
   */
  retry(inputResponses: unknown, waiter: Waiter): void {
    if (this.waiter)
      return waiter.settle(
        errorResponse(waiter.requestId, invalidParams('This input round was already answered')),
      );
    if (this.settled) return this.deliver(waiter);
    const responses =
      inputResponses !== null && typeof inputResponses === 'object'
        ? (inputResponses as Record<string, unknown>)
        : {};
    const missing = this.presented.filter((key) => !(key in responses));
    if (missing.length > 0)
      return waiter.settle(
        errorResponse(
          waiter.requestId,
          invalidParams(`inputResponses has no answer for ${missing.join(', ')}`),
        ),
      );
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
    waiter.settle({ ...this.settled!, id: waiter.requestId });
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
    if (!this.parked) {
      if (!this.calls.hold(this)) {
        this.stop('this replica holds as many parked calls as it may');
        return waiter.settle(
          errorResponse(
            waiter.requestId,
            new RpcError(
              ProtocolErrorCode.InternalError,
              'The upstream asked for input, and this replica holds as many calls waiting for input as it may; try again later',
            ),
          ),
        );
      }
      this.parked = true;
    }
    const requestState = this.calls.seal(this.binding, this.id);
    this.expiry = setTimeout(
      () => this.cancel('the input round expired before the client answered it'),
      this.calls.ttlMs,
    );
    this.expiry.unref();
    waiter.settle({
      jsonrpc: '2.0',
      id: waiter.requestId,
      result: { resultType: 'input_required', inputRequests, requestState },
    });
  }

  private clearExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
  }
}

/**
 * The calls parked on this replica, and the way to them from any other: a retry that lands
 * elsewhere goes over the bus to the replica its state names, which answers over the bus.
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
    private readonly sealer: RequestStateSealer,
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

  /** How many calls wait here for their client's answers. */
  get size(): number {
    return this.held.size;
  }

  /** A tools/call about to run: parked if its upstream asks the client for input. */
  begin(
    principal: Principal,
    scope: McpScope,
    message: JSONRPCRequest,
    capabilities: ClientCapabilities,
    waiter: Waiter,
  ): ParkedCall {
    return new ParkedCall(this, bindingOf(principal, scope, message), capabilities, waiter);
  }

  /**
   * A retry of a call parked on some replica, when its state says so; null for any other
   * request (whose state, if any, the relay checks).
   */
  parkedIn(
    principal: Principal,
    scope: McpScope,
    message: JSONRPCRequest,
  ): { kind: 'parked'; replica: string; parkedId: string } | { kind: 'rerun' } | null {
    const state = (message.params as { requestState?: unknown } | undefined)?.requestState;
    if (state === undefined || message.method !== 'tools/call') return null;
    const opened = this.sealer.unseal(state, bindingOf(principal, scope, message));
    return opened.ok && opened.content.kind !== 'upstream' ? opened.content : null;
  }

  /** Takes the retry's answers to its parked call, wherever that is held. */
  retry(
    parked: { replica: string; parkedId: string },
    message: JSONRPCRequest,
    waiter: Waiter,
    signal: AbortSignal,
  ): void {
    const inputResponses = (message.params as { inputResponses?: unknown }).inputResponses;
    if (parked.replica === this.replica.value) {
      const call = this.held.get(parked.parkedId);
      if (!call) return waiter.settle(gone(waiter.requestId));
      signal.addEventListener('abort', () => call.cancel('the client closed the retry'), {
        once: true,
      });
      call.retry(inputResponses, waiter);
      return;
    }
    const ticket = randomUUID();
    const entry = { waiter, taken: false };
    this.remote.set(ticket, entry);
    const toOwner = (extra: { inputResponses?: Record<string, unknown> }) =>
      this.publish({
        type: 'mcp.parked.to-owner',
        replica: parked.replica,
        parkedId: parked.parkedId,
        ticket,
        from: this.replica.value,
        requestId: message.id,
        ...extra,
      });
    const untaken = setTimeout(() => {
      if (entry.taken || this.remote.get(ticket) !== entry) return;
      this.remote.delete(ticket);
      waiter.settle(gone(waiter.requestId));
    }, OWNER_TAKES_WITHIN_MS);
    untaken.unref();
    signal.addEventListener(
      'abort',
      () => {
        if (this.remote.delete(ticket)) toOwner({});
      },
      { once: true },
    );
    toOwner({ inputResponses: (inputResponses ?? {}) as Record<string, unknown> });
  }

  /** A state whose retry runs the call again (after the user completed a URL elicitation). */
  sealRerun(binding: RequestStateBinding): string {
    return this.sealer.seal(binding, { kind: 'rerun' });
  }

  seal(binding: RequestStateBinding, parkedId: string): string {
    return this.sealer.seal(binding, { kind: 'parked', replica: this.replica.value, parkedId });
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
      if (!call) return reply(gone(event.requestId), true);
      if (!event.inputResponses) return call.cancel('the client closed the retry');
      reply();
      call.retry(event.inputResponses, {
        requestId: event.requestId,
        notify: (notification) => reply(notification),
        settle: (response) => reply(response, true),
      });
    }
    if (event.type === 'mcp.parked.to-retry' && event.replica === this.replica.value) {
      const entry = this.remote.get(event.ticket);
      if (!entry) return;
      entry.taken = true;
      if (!event.message) return;
      if (!event.final) return entry.waiter.notify(event.message as JSONRPCNotification);
      this.remote.delete(event.ticket);
      entry.waiter.settle(event.message as JSONRPCResponse);
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

/** What a parked call's state is bound to: the client's own request, as it names the tool. */
function bindingOf(
  principal: Principal,
  scope: McpScope,
  message: JSONRPCRequest,
): RequestStateBinding {
  const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
  return {
    subject: principal.subject,
    scope: scopeKey(scope),
    gatewayId: '',
    method: 'tools/call',
    target: typeof params.name === 'string' ? params.name : '',
    arguments: params.arguments,
  };
}

/**
 * A URL elicitation the call needs (-32042, an upstream's or Portico's own for an OAuth upstream
 * the user has not connected) as a URL-mode input round for a client that declared URL
 * elicitation; its state runs the call again once the user is done. Null: the error stands.
 */
function urlRound(
  response: JSONRPCResponse,
  declared: ClientCapabilities,
  rerunState: () => string,
): JSONRPCResponse | null {
  if (!('error' in response) || response.error.code !== URL_ELICITATION_REQUIRED) return null;
  if (!declaresCapability(declared, { elicitation: { url: {} } })) return null;
  const elicitations = (response.error.data as { elicitations?: unknown } | undefined)
    ?.elicitations;
  if (!Array.isArray(elicitations) || elicitations.length === 0) return null;
  const inputRequests: Record<string, unknown> = {};
  for (const [index, elicitation] of elicitations.slice(0, MAX_URL_ELICITATIONS).entries()) {
    const { url, message } = (elicitation ?? {}) as { url?: unknown; message?: unknown };
    if (typeof url !== 'string') return null;
    inputRequests[`url_${index + 1}`] = {
      method: 'elicitation/create',
      params: { mode: 'url', url, message: typeof message === 'string' ? message : url },
    };
  }
  return {
    jsonrpc: '2.0',
    id: response.id,
    result: { resultType: 'input_required', inputRequests, requestState: rerunState() },
  } as JSONRPCResponse;
}

/** The call the state names is no longer held: expired, cancelled, or its replica gone. */
function gone(requestId: RequestId): JSONRPCResponse {
  return errorResponse(
    requestId,
    invalidParams(`${INVALID_REQUEST_STATE}: the call it continues is no longer waiting`),
  );
}
