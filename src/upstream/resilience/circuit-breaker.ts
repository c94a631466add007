export const CIRCUIT_STATES = ['closed', 'half-open', 'open'] as const;

export type CircuitState = (typeof CIRCUIT_STATES)[number];

export interface CircuitSettings {
  /** Failures in a row that open the circuit; 0 never opens it. */
  failureThreshold: number;
  /**
   * The first cool-down before a trial call. Each trial that fails slowly (no answer) doubles it,
   * up to `cooldownMs`, so an upstream that hangs costs a held socket only now and then. A trial
   * refused at once costs nothing, so the cool-down stays this short: an upstream back after a
   * short outage (a restart) is used again within this.
   */
  firstCooldownMs: number;
  /** The longest cool-down. */
  cooldownMs: number;
}

export interface CircuitSnapshot {
  state: CircuitState;
  /** Failures in a row: those that opened it, and failed trials since. */
  failures: number;
  /** While open, when a trial call will be let through; null otherwise. */
  retryAt: Date | null;
  /** The last failure counted in `failures`, in words; null when there is none. */
  lastFailure: string | null;
}

/** Leave to make one call; a trial call (`trial`) decides whether the circuit closes again. */
export interface CircuitPermit {
  readonly trial: boolean;
}

const ORDINARY: CircuitPermit = { trial: false };
const TRIAL: CircuitPermit = { trial: true };

/**
 * A circuit breaker over one upstream. Closed, it counts the calls that failed in a row; at the
 * threshold it opens, and calls are refused at once until the cool-down ends. Then it is
 * half-open: one trial call goes through, and the circuit closes when that call succeeds, or
 * opens again (for a longer cool-down) when it fails. The caller decides what counts as a
 * failure; the breaker only counts.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil: number | null = null;
  /** Failed openings in a row, which set the length of the next cool-down. */
  private openings = 0;
  private trialInFlight = false;
  private lastFailure: string | null = null;

  constructor(
    private readonly settings: CircuitSettings,
    private readonly onChange: (state: 'open' | 'closed', snapshot: CircuitSnapshot) => void = () =>
      undefined,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.openUntil === null) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  snapshot(): CircuitSnapshot {
    const state = this.state;
    return {
      state,
      failures: this.failures,
      retryAt: state === 'open' && this.openUntil !== null ? new Date(this.openUntil) : null,
      lastFailure: this.lastFailure,
    };
  }

  /** Whether a call would be refused now; takes no trial. */
  get refusing(): boolean {
    const state = this.state;
    return state === 'open' || (state === 'half-open' && this.trialInFlight);
  }

  /** Leave to call, or null when the circuit refuses. Half-open, only one trial at a time. */
  admit(): CircuitPermit | null {
    switch (this.state) {
      case 'closed':
        return ORDINARY;
      case 'open':
        return null;
      case 'half-open':
        if (this.trialInFlight) return null;
        this.trialInFlight = true;
        return TRIAL;
    }
  }

  /** The upstream answered. */
  succeeded(permit: CircuitPermit): void {
    if (permit.trial) {
      this.trialInFlight = false;
      this.close();
    } else if (this.openUntil === null) {
      this.failures = 0;
      this.lastFailure = null;
    }
  }

  /**
   * The upstream failed the call; `slow` when it failed by not answering, which makes the next
   * cool-down longer. A late failure of a call let through before opening adds nothing.
   */
  failed(permit: CircuitPermit, reason: string, slow = true): void {
    if (permit.trial) {
      this.trialInFlight = false;
      this.lastFailure = reason;
      this.failures++;
      this.open(slow);
    } else if (this.openUntil === null) {
      this.lastFailure = reason;
      this.failures++;
      if (this.settings.failureThreshold > 0 && this.failures >= this.settings.failureThreshold)
        this.open(slow);
    }
  }

  /** The call ended in a way that says nothing of the upstream (cancelled by its caller, ...). */
  released(permit: CircuitPermit): void {
    if (permit.trial) this.trialInFlight = false;
  }

  /**
   * A failure outside any permitted call (a connection that could not even be started): counted
   * while closed, and reopens a half-open circuit, whose trial it would otherwise never reach.
   */
  observeFailure(reason: string, slow = true): void {
    const state = this.state;
    if (state === 'closed') this.failed(ORDINARY, reason, slow);
    else if (state === 'half-open' && !this.trialInFlight) this.failed(TRIAL, reason, slow);
  }

  private open(slow: boolean): void {
    const { firstCooldownMs, cooldownMs } = this.settings;
    if (!slow) this.openings = 0;
    const cooldown = Math.min(cooldownMs, firstCooldownMs * 2 ** Math.min(this.openings, 30));
    this.openings++;
    this.openUntil = this.now() + cooldown;
    this.onChange('open', this.snapshot());
  }

  private close(): void {
    this.failures = 0;
    this.lastFailure = null;
    this.openings = 0;
    this.openUntil = null;
    this.onChange('closed', this.snapshot());
  }
}
