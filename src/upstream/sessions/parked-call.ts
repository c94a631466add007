import { randomUUID } from 'node:crypto';
import { type CallAbort } from '../../common/call-abort';
import {
  type ClientCapabilities,
  type JSONRPCNotification,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/client';
import { declaresCapability, requiredCapability } from '../client-capabilities';
import { type UpstreamAsk } from '../upstream-connection';
import { UpstreamRpcError } from '../upstream-error';

/** Input requests that arrive this close together go to the client as one round. */
const ROUND_GATHER_MS = 10;
/** The error a request gets when the capability an input needs was not declared (2026-07-28). */
const MISSING_CLIENT_CAPABILITY = -32021;

/** Whoever waits for a parked call's next round or result: the request that asked, or a retry. */
export interface Waiter {
  notify(notification: JSONRPCNotification): void;
  settle(outcome: Outcome): void;
}

export type Outcome = { result: Result } | { error: Error };

/** Where parked calls are held on this replica, and the state that names one there. */
export interface CallHolder {
  readonly ttlMs: number;
  /** False when the replica holds as many as it may. */
  hold(call: ParkedCall): boolean;
  forget(call: ParkedCall): void;
  stateOf(call: ParkedCall): string;
}

/**
 * One call whose 2025 upstream asks its client for input mid-call. The upstream call keeps running
 * (held on this replica); its requests go to the client as an `input_required` round, and the
 * client's retry, on whichever replica it lands, answers them here and waits for the result or
 * the next round. Nothing of it reaches another client: the call is its own caller on the
 * upstream connection.
 */
export class ParkedCall {
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
    private readonly calls: CallHolder,
    private readonly capabilities: ClientCapabilities,
    private waiter: Waiter | null,
    /** Cancels the upstream call. */
    private readonly abort: CallAbort,
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

function invalid(message: string): Outcome {
  return { error: new UpstreamRpcError(ProtocolErrorCode.InvalidParams, message) };
}
