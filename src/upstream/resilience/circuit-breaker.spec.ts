import { CircuitBreaker, type CircuitPermit } from './circuit-breaker';

const FIRST_COOLDOWN_MS = 500;

describe('CircuitBreaker', () => {
  let clock: number;
  let changes: string[];
  const make = (failureThreshold = 3, cooldownMs = 10_000) =>
    new CircuitBreaker(
      { failureThreshold, firstCooldownMs: FIRST_COOLDOWN_MS, cooldownMs },
      (state) => changes.push(state),
      () => clock,
    );
  const fail = (breaker: CircuitBreaker, times: number) => {
    for (let i = 0; i < times; i++) breaker.failed(breaker.admit()!, `failure ${i + 1}`);
  };

  beforeEach(() => {
    clock = 1_000_000;
    changes = [];
  });

  it('opens after the threshold of failures in a row, and refuses calls until the cool-down ends', () => {
    const breaker = make(3);
    fail(breaker, 2);
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 2 });
    expect(breaker.admit()).not.toBeNull();
    fail(breaker, 1);
    expect(breaker.snapshot()).toEqual({
      state: 'open',
      failures: 3,
      retryAt: new Date(clock + FIRST_COOLDOWN_MS),
      lastFailure: 'failure 1',
    });
    expect(breaker.refusing).toBe(true);
    expect(breaker.admit()).toBeNull();
    expect(changes).toEqual(['open']);
  });

  it('counts only failures in a row: an answer in between starts the count again', () => {
    const breaker = make(3);
    fail(breaker, 2);
    breaker.succeeded(breaker.admit()!);
    fail(breaker, 2);
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 2 });
  });

  it('ignores calls that say nothing of the upstream', () => {
    const breaker = make(2);
    fail(breaker, 1);
    for (let i = 0; i < 5; i++) breaker.released(breaker.admit()!);
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', failures: 1 });
  });

  it('lets one trial call through once half-open, and closes when it succeeds', () => {
    const breaker = make(1);
    fail(breaker, 1);
    clock += FIRST_COOLDOWN_MS;
    expect(breaker.state).toBe('half-open');
    expect(breaker.refusing).toBe(false);
    const trial = breaker.admit();
    expect(trial).toEqual({ trial: true });
    // Everyone else waits for the trial's outcome.
    expect(breaker.admit()).toBeNull();
    expect(breaker.refusing).toBe(true);
    breaker.succeeded(trial!);
    expect(breaker.snapshot()).toEqual({
      state: 'closed',
      failures: 0,
      retryAt: null,
      lastFailure: null,
    });
    expect(breaker.admit()).toEqual({ trial: false });
    expect(changes).toEqual(['open', 'closed']);
  });

  it('reopens for twice as long when the trial fails, up to the longest cool-down', () => {
    const breaker = make(1, 3000);
    fail(breaker, 1);
    const waits: number[] = [];
    for (let round = 0; round < 5; round++) {
      const retryAt = breaker.snapshot().retryAt!.getTime();
      waits.push(retryAt - clock);
      clock = retryAt;
      breaker.failed(breaker.admit()!, 'still down');
    }
    expect(waits).toEqual([500, 1000, 2000, 3000, 3000]);
    expect(breaker.snapshot()).toMatchObject({ state: 'open', failures: 6 });
  });

  it('starts the cool-downs short again once it has closed', () => {
    const breaker = make(1);
    fail(breaker, 1);
    clock += FIRST_COOLDOWN_MS;
    breaker.failed(breaker.admit()!, 'down');
    clock += 2 * FIRST_COOLDOWN_MS;
    breaker.succeeded(breaker.admit()!);
    fail(breaker, 1);
    expect(breaker.snapshot().retryAt!.getTime() - clock).toBe(FIRST_COOLDOWN_MS);
  });

  it('frees the trial when it ends in a way that says nothing, so another call may try', () => {
    const breaker = make(1);
    fail(breaker, 1);
    clock += FIRST_COOLDOWN_MS;
    breaker.released(breaker.admit()!);
    expect(breaker.admit()).toEqual({ trial: true });
  });

  it('does not let a late answer of a call made before it opened close it', () => {
    const breaker = make(2);
    const early: CircuitPermit = breaker.admit()!;
    fail(breaker, 2);
    breaker.succeeded(early);
    breaker.failed(early, 'late');
    expect(breaker.snapshot()).toMatchObject({ state: 'open', failures: 2 });
  });

  it('counts a failure outside any call, and it reopens a half-open breaker', () => {
    const breaker = make(2);
    breaker.observeFailure('never opened');
    breaker.observeFailure('never opened');
    expect(breaker.state).toBe('open');
    clock += FIRST_COOLDOWN_MS;
    breaker.observeFailure('still not');
    expect(breaker.snapshot()).toMatchObject({ state: 'open', failures: 3 });
  });

  it('never opens with a threshold of 0', () => {
    const breaker = make(0);
    fail(breaker, 50);
    expect(breaker.state).toBe('closed');
  });

  it('keeps the cool-down short while trials are refused at once, and lengthens it only for trials that hang', () => {
    const breaker = make(1);
    breaker.failed(breaker.admit()!, 'refused', false);
    for (let trial = 0; trial < 4; trial++) {
      expect(breaker.snapshot().retryAt).toEqual(new Date(clock + FIRST_COOLDOWN_MS));
      clock += FIRST_COOLDOWN_MS;
      breaker.failed(breaker.admit()!, 'refused again', false);
    }
    expect(breaker.snapshot().retryAt).toEqual(new Date(clock + FIRST_COOLDOWN_MS));
    clock += FIRST_COOLDOWN_MS;
    breaker.failed(breaker.admit()!, 'no answer', true);
    expect(breaker.snapshot().retryAt).toEqual(new Date(clock + 2 * FIRST_COOLDOWN_MS));
    clock += 2 * FIRST_COOLDOWN_MS;
    breaker.failed(breaker.admit()!, 'no answer', true);
    expect(breaker.snapshot().retryAt).toEqual(new Date(clock + 4 * FIRST_COOLDOWN_MS));
  });
});
