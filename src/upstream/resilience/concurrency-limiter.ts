import { errorMessage } from '../../common/error-message';
import {
  CircuitBreaker,
  type CircuitPermit,
  type CircuitSettings,
  type CircuitSnapshot,
} from './circuit-breaker';

export interface ConcurrencySettings {
  /** Calls running at once. */
  maxConcurrent: number;
  /** Calls waiting for one of them to end; beyond it a call is refused at once. */
  maxQueue: number;
  /** How long a call waits in the queue before it is refused. */
  queueTimeoutMs: number;
}

export type CapacityReason = 'queue-full' | 'queue-timeout';

/** A call refused for want of room: nothing was sent. */
export class CapacityRefusal extends Error {
  constructor(
    readonly reason: CapacityReason,
    message: string,
  ) {
    super(message);
    this.name = 'CapacityRefusal';
  }
}

interface Waiter {
  grant(): void;
}

/** Ends the call's hold on its slot; a second call does nothing. */
export type Release = () => void;

/**
 * At most `maxConcurrent` calls at once, then a queue of at most `maxQueue`, served in order,
 * each waiting at most `queueTimeoutMs`. So a slow upstream holds a bounded number of sockets and
 * a bounded amount of memory, and its callers learn it at once instead of piling up.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly settings: ConcurrencySettings) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * A slot, at once or after waiting in the queue. Rejects with a CapacityRefusal when the queue
   * is full or the wait runs out, and with the signal's reason when the caller gives up.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.running < this.settings.maxConcurrent && this.queue.length === 0) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    const { maxConcurrent, maxQueue, queueTimeoutMs } = this.settings;
    if (this.queue.length >= maxQueue)
      return Promise.reject(
        new CapacityRefusal(
          'queue-full',
          `${this.running} calls are running and ${this.queue.length} waiting, the most allowed (UPSTREAM_MAX_CONCURRENT ${maxConcurrent}, UPSTREAM_QUEUE ${maxQueue})`,
        ),
      );
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.releaser());
        },
      };
      const onAbort = () => {
        leave();
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(() => {
        leave();
        reject(
          new CapacityRefusal(
            'queue-timeout',
            `no call slot came free within ${queueTimeoutMs} ms (UPSTREAM_QUEUE_TIMEOUT_MS; ${this.running} calls running, UPSTREAM_MAX_CONCURRENT ${maxConcurrent})`,
          ),
        );
      }, queueTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** The slot passes straight to the first waiter, so a newcomer never jumps the queue. */
  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue[0];
      if (next) next.grant();
      else this.running--;
    };
  }
}

/** Why a call was refused unsent. */
export type RefusalReason = 'circuit-open' | CapacityReason;

export type AdmissionSettings = CircuitSettings & ConcurrencySettings;

/** What one upstream's admission looks like now, on this replica. */
export interface AdmissionState {
  circuit: CircuitSnapshot;
  inFlight: number;
  queued: number;
}

/**
 * What a failed exchange says of the upstream: that it is there, nothing, or that it failed
 * (`slow-failure` when the failure held a socket until it came, as a hanging upstream's does).
 */
export type AdmissionOutcome = 'success' | 'neutral' | 'failure' | 'slow-failure';

/**
 * What an admission makes of errors, which only its user can read: the outcome a failed exchange's
 * error is, and the error a refused call is thrown as.
 */
export interface AdmissionRules {
  judge(error: unknown): AdmissionOutcome;
  refusal(reason: RefusalReason, message: string, retryAt: Date | null): Error;
}

export interface AdmissionHooks {
  /** A call was refused without being sent. */
  refused?(reason: RefusalReason): void;
  /** The circuit opened or closed. */
  changed?(state: 'open' | 'closed', snapshot: CircuitSnapshot): void;
}

/** One call let through; `settle` it exactly once, with what the exchange threw (or nothing). */
export interface AdmissionPass {
  settle(error?: unknown): void;
}

const LAST_FAILURE_SHOWN = 200;

/**
 * One upstream's protection on this replica: its circuit breaker in front of the cap on its
 * concurrent calls. Every request to the upstream passes through `enter`; a call that succeeded
 * is not judged.
 */
export class Admission {
  private readonly breaker: CircuitBreaker;
  private readonly limiter: ConcurrencyLimiter;

  constructor(
    settings: AdmissionSettings,
    private readonly rules: AdmissionRules,
    private readonly hooks: AdmissionHooks = {},
    now: () => number = Date.now,
  ) {
    this.breaker = new CircuitBreaker(
      settings,
      (state, snapshot) => hooks.changed?.(state, snapshot),
      now,
    );
    this.limiter = new ConcurrencyLimiter(settings);
  }

  state(): AdmissionState {
    return {
      circuit: this.breaker.snapshot(),
      inFlight: this.limiter.active,
      queued: this.limiter.queued,
    };
  }

  /** Throws the rules' refusal while the circuit refuses calls; takes nothing. */
  check(): void {
    if (this.breaker.refusing) throw this.circuitRefusal();
  }

  /**
   * Waits for a slot, then for the circuit's leave. Throws the rules' refusal, or the signal's
   * reason when the caller gives up while waiting.
   */
  async enter(signal?: AbortSignal): Promise<AdmissionPass> {
    this.check();
    let release: Release;
    try {
      release = await this.limiter.acquire(signal);
    } catch (error) {
      if (!(error instanceof CapacityRefusal)) throw error;
      this.hooks.refused?.(error.reason);
      throw this.rules.refusal(error.reason, `${error.message}; the call was not sent`, null);
    }
    // The circuit may have opened while the call waited.
    const permit = this.breaker.admit();
    if (!permit) {
      release();
      throw this.circuitRefusal();
    }
    let settled = false;
    return {
      settle: (error?: unknown) => {
        if (settled) return;
        settled = true;
        release();
        this.report(permit, error);
      },
    };
  }

  /** A failure before any request could be made (the channel never opened). */
  observeFailure(error: unknown): void {
    const outcome = this.rules.judge(error);
    if (outcome === 'failure' || outcome === 'slow-failure')
      this.breaker.observeFailure(errorMessage(error), outcome === 'slow-failure');
  }

  private report(permit: CircuitPermit, error: unknown): void {
    const outcome = error === undefined ? 'success' : this.rules.judge(error);
    switch (outcome) {
      case 'success':
        this.breaker.succeeded(permit);
        return;
      case 'neutral':
        this.breaker.released(permit);
        return;
      case 'failure':
      case 'slow-failure':
        this.breaker.failed(permit, errorMessage(error), outcome === 'slow-failure');
    }
  }

  private circuitRefusal(): Error {
    this.hooks.refused?.('circuit-open');
    const { state, failures, retryAt, lastFailure } = this.breaker.snapshot();
    const last = lastFailure ? ` (last: ${clip(lastFailure)})` : '';
    const why = `after ${failures} failure${failures === 1 ? '' : 's'} in a row${last}`;
    const message =
      state === 'open' && retryAt
        ? `its circuit breaker is open ${why}, so calls fail at once until it is tried again at ${retryAt.toISOString()}; the call was not sent`
        : `its circuit breaker is half-open ${why}: a trial call is under way, and calls fail at once until it answers; the call was not sent`;
    return this.rules.refusal('circuit-open', message, retryAt);
  }
}

/** The last failure stays short, so that when to try again survives the message's own limit. */
function clip(text: string): string {
  return text.length > LAST_FAILURE_SHOWN ? `${text.slice(0, LAST_FAILURE_SHOWN)}…` : text;
}
