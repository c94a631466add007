import {
  CircuitBreaker,
  type CircuitPermit,
  type CircuitSettings,
  type CircuitSnapshot,
} from './circuit-breaker';
import {
  CapacityRefusal,
  ConcurrencyLimiter,
  type ConcurrencySettings,
} from './concurrency-limiter';
import {
  type RefusalReason,
  UpstreamFailure,
  UpstreamRefused,
  UpstreamRpcError,
} from '../upstream-error';

const LAST_FAILURE_SHOWN = 200;

export type AdmissionSettings = CircuitSettings & ConcurrencySettings;

/** What one upstream's admission looks like now, on this replica. */
export interface AdmissionState {
  circuit: CircuitSnapshot;
  inFlight: number;
  queued: number;
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

/**
 * What an exchange's outcome says of the upstream. Only failures that are the upstream's own
 * count against it: no answer, no connection, a 5xx. An answer of any kind, even an error or a
 * 4xx, shows it is there; a cancelled call, a malformed message, a missing token or Portico's own failure says nothing.
 */
export function breakerOutcome(error: unknown): 'success' | 'failure' | 'neutral' {
  if (error === undefined || error instanceof UpstreamRpcError) return 'success';
  if (!(error instanceof UpstreamFailure) || error instanceof UpstreamRefused) return 'neutral';
  switch (error.kind) {
    case 'timeout':
    case 'unreachable':
      return 'failure';
    case 'http':
      return error.status === undefined || error.status >= 500 ? 'failure' : 'success';
    case 'session-expired':
      return 'success';
    case 'protocol':
    case 'cancelled':
    case 'authorization':
    case 'internal':
      return 'neutral';
  }
}

/** A failure that held a socket until a timeout, as a hanging upstream does; a refusal is quick. */
function failedSlowly(failure: UpstreamFailure): boolean {
  return failure.kind !== 'unreachable';
}

/**
 * One upstream's protection on this replica: its circuit breaker, and the cap on its concurrent
 * calls. Every request to the upstream passes through `enter`.
 */
export class UpstreamAdmission {
  private readonly breaker: CircuitBreaker;
  private readonly limiter: ConcurrencyLimiter;

  constructor(
    settings: AdmissionSettings,
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

  /** Throws an UpstreamRefused while the circuit refuses calls; takes nothing. */
  check(): void {
    if (this.breaker.refusing) throw this.circuitRefusal();
  }

  /**
   * Waits for a slot, then for the circuit's leave. Throws an UpstreamRefused, or the signal's
   * reason when the caller gives up while waiting.
   */
  async enter(signal?: AbortSignal): Promise<AdmissionPass> {
    this.check();
    let release: () => void;
    try {
      release = await this.limiter.acquire(signal);
    } catch (error) {
      if (!(error instanceof CapacityRefusal)) throw error;
      this.hooks.refused?.(error.reason);
      throw new UpstreamRefused(error.reason, `${error.message}; the call was not sent`, null);
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
  observeFailure(failure: UpstreamFailure): void {
    if (breakerOutcome(failure) === 'failure')
      this.breaker.observeFailure(failure.message, failedSlowly(failure));
  }

  private report(permit: CircuitPermit, error: unknown): void {
    switch (breakerOutcome(error)) {
      case 'success':
        this.breaker.succeeded(permit);
        return;
      case 'failure':
        this.breaker.failed(
          permit,
          (error as UpstreamFailure).message,
          failedSlowly(error as UpstreamFailure),
        );
        return;
      case 'neutral':
        this.breaker.released(permit);
    }
  }

  private circuitRefusal(): UpstreamRefused {
    this.hooks.refused?.('circuit-open');
    const { state, failures, retryAt, lastFailure } = this.breaker.snapshot();
    const last = lastFailure ? ` (last: ${clip(lastFailure)})` : '';
    const why = `after ${failures} failure${failures === 1 ? '' : 's'} in a row${last}`;
    const message =
      state === 'open' && retryAt
        ? `its circuit breaker is open ${why}, so calls fail at once until it is tried again at ${retryAt.toISOString()}; the call was not sent`
        : `its circuit breaker is half-open ${why}: a trial call is under way, and calls fail at once until it answers; the call was not sent`;
    return new UpstreamRefused('circuit-open', message, retryAt);
  }
}

/** The last failure stays short, so that when to try again survives the message's own limit. */
function clip(text: string): string {
  return text.length > LAST_FAILURE_SHOWN ? `${text.slice(0, LAST_FAILURE_SHOWN)}…` : text;
}

/**
 * Runs one exchange through the upstream's admission, when it has one: its circuit breaker and its cap
 * on calls. The pass is settled with the exchange's outcome; a wait for a slot that the caller
 * abandoned is a cancellation.
 */
export async function throughAdmission<T>(
  admission: UpstreamAdmission | undefined,
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
