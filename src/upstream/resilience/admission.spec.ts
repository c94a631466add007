import {
  breakerOutcome,
  UPSTREAM_ADMISSION,
  UpstreamFailure,
  UpstreamRefused,
  UpstreamRpcError,
} from '../upstream-error';
import { Admission, type AdmissionSettings } from './concurrency-limiter';
import { doublingWait, isRetryable, retryDelay } from './upstream-retry';

const FIRST_COOLDOWN_MS = 500;

const SETTINGS: AdmissionSettings = {
  failureThreshold: 2,
  firstCooldownMs: 500,
  cooldownMs: 10_000,
  maxConcurrent: 1,
  maxQueue: 1,
  queueTimeoutMs: 60_000,
};

describe('breakerOutcome', () => {
  it.each([
    ['no error', undefined, 'success'],
    ['an upstream JSON-RPC error', new UpstreamRpcError(-32602, 'bad arguments'), 'success'],
    ['a timeout', new UpstreamFailure('timeout', 'no answer within 10 ms'), 'slow-failure'],
    ['a refused connection', new UpstreamFailure('unreachable', 'ECONNREFUSED'), 'failure'],
    ['HTTP 503', new UpstreamFailure('http', 'HTTP 503', 503), 'slow-failure'],
    ['HTTP 401', new UpstreamFailure('http', 'HTTP 401', 401), 'success'],
    ['HTTP 400', new UpstreamFailure('http', 'HTTP 400', 400), 'success'],
    ['a forgotten session', new UpstreamFailure('session-expired', 'gone', 404), 'success'],
    ['a malformed message', new UpstreamFailure('protocol', 'bad JSON'), 'neutral'],
    ['a cancelled call', new UpstreamFailure('cancelled', 'client left'), 'neutral'],
    ['a missing token', new UpstreamFailure('authorization', 'connect first', 401), 'neutral'],
    ['a refusal of its own', new UpstreamRefused('queue-full', 'full', null), 'neutral'],
    ['anything else', new RangeError('stack'), 'neutral'],
  ])('takes %s as %s', (_name, error, outcome) => {
    expect(breakerOutcome(error)).toBe(outcome);
  });
});

describe('an upstream’s Admission', () => {
  let clock: number;
  let refusals: string[];
  const make = (settings: Partial<AdmissionSettings> = {}) =>
    new Admission(
      { ...SETTINGS, ...settings },
      UPSTREAM_ADMISSION,
      { refused: (reason) => refusals.push(reason) },
      () => clock,
    );

  beforeEach(() => {
    clock = Date.UTC(2025, 0, 1);
    refusals = [];
  });

  it('opens on the upstream’s failures, not on a tool’s error, and then refuses saying until when', async () => {
    const admission = make({ maxConcurrent: 10 });
    (await admission.enter()).settle(new UpstreamRpcError(-32000, 'the tool broke'));
    (await admission.enter()).settle(new UpstreamFailure('timeout', 'no answer within 30000 ms'));
    expect(admission.state().circuit.state).toBe('closed');
    (await admission.enter()).settle(new UpstreamFailure('unreachable', 'connect ECONNREFUSED'));
    expect(admission.state().circuit).toMatchObject({ state: 'open', failures: 2 });

    const refused = await admission.enter().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpstreamRefused);
    const retryAt = new Date(clock + FIRST_COOLDOWN_MS);
    expect(refused).toMatchObject({ kind: 'unreachable', reason: 'circuit-open', retryAt });
    expect((refused as Error).message).toBe(
      `its circuit breaker is open after 2 failures in a row (last: connect ECONNREFUSED), so calls fail at once until it is tried again at ${retryAt.toISOString()}; the call was not sent`,
    );
    expect(() => admission.check()).toThrow(UpstreamRefused);
    expect(refusals).toEqual(['circuit-open', 'circuit-open']);
  });

  it('lets one trial through when half-open, refuses the others meanwhile, and closes on its answer', async () => {
    const admission = make({ failureThreshold: 1, maxConcurrent: 10 });
    (await admission.enter()).settle(new UpstreamFailure('timeout', 'no answer'));
    clock += FIRST_COOLDOWN_MS;
    const trial = await admission.enter();
    await expect(admission.enter()).rejects.toThrow(/half-open .*a trial call is under way/);
    trial.settle();
    expect(admission.state().circuit.state).toBe('closed');
    (await admission.enter()).settle();
  });

  it('holds calls past the cap in its queue and refuses past the queue, counting nothing against the upstream', async () => {
    const admission = make();
    const running = await admission.enter();
    const queued = admission.enter();
    expect(admission.state()).toMatchObject({ inFlight: 1, queued: 1 });
    const refused = await admission.enter().catch((error: unknown) => error);
    expect(refused).toMatchObject({ reason: 'queue-full', retryAt: null });
    expect((refused as Error).message).toMatch(
      /UPSTREAM_MAX_CONCURRENT 1, UPSTREAM_QUEUE 1.*not sent/,
    );
    running.settle();
    (await queued).settle();
    expect(admission.state()).toMatchObject({ inFlight: 0, queued: 0, circuit: { failures: 0 } });
    expect(refusals).toEqual(['queue-full']);
  });

  it('refuses a queued call whose wait the circuit opened meanwhile', async () => {
    const admission = make({ failureThreshold: 1 });
    const running = await admission.enter();
    const queued = admission.enter().catch((error: unknown) => error);
    running.settle(new UpstreamFailure('timeout', 'no answer'));
    expect(await queued).toMatchObject({ reason: 'circuit-open' });
    expect(admission.state()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('frees the slot once however often a call is settled', async () => {
    const admission = make({ maxConcurrent: 2, failureThreshold: 5 });
    const pass = await admission.enter();
    pass.settle(new UpstreamFailure('timeout', 'x'));
    pass.settle(new UpstreamFailure('timeout', 'x'));
    expect(admission.state()).toMatchObject({ inFlight: 0, circuit: { failures: 1 } });
  });
});

describe('Admission, with rules of its own', () => {
  it('asks its rules only of failures, and refuses with the error they make', async () => {
    const judged: unknown[] = [];
    const admission = new Admission(
      { ...SETTINGS, failureThreshold: 1, maxConcurrent: 10 },
      {
        judge: (error) => {
          judged.push(error);
          return 'slow-failure';
        },
        refusal: (reason, message) => new RangeError(`${reason}: ${message}`),
      },
    );
    (await admission.enter()).settle();
    expect(judged).toEqual([]);
    (await admission.enter()).settle('it broke');
    expect(judged).toEqual(['it broke']);
    expect(admission.state().circuit).toMatchObject({ state: 'open', lastFailure: 'it broke' });
    await expect(admission.enter()).rejects.toThrow(
      new RangeError(
        `circuit-open: its circuit breaker is open after 1 failure in a row (last: it broke), so calls fail at once until it is tried again at ${admission.state().circuit.retryAt?.toISOString()}; the call was not sent`,
      ),
    );
  });
});

describe('retries', () => {
  it('retry connection failures only, never a refusal of Portico’s own', () => {
    expect(isRetryable(new UpstreamFailure('unreachable', 'ECONNRESET'))).toBe(true);
    expect(isRetryable(new UpstreamFailure('timeout', 'no answer'))).toBe(false);
    expect(isRetryable(new UpstreamFailure('http', 'HTTP 503', 503))).toBe(false);
    expect(isRetryable(new UpstreamRpcError(-32603, 'internal'))).toBe(false);
    expect(isRetryable(new UpstreamRefused('circuit-open', 'open', null))).toBe(false);
  });

  it('wait nothing for none in a row, then double from the first wait up to the most', () => {
    expect([0, 1, 2, 3, 7, 2000].map((inARow) => doublingWait(inARow, 500, 30_000))).toEqual([
      0, 500, 1000, 2000, 30_000, 30_000,
    ]);
  });

  it('wait twice as long each time, between half and all of the doubled wait', () => {
    const policy = { retries: 3, backoffMs: 100 };
    expect([0, 1, 2].map((attempt) => retryDelay(policy, attempt, () => 0))).toEqual([
      50, 100, 200,
    ]);
    expect([0, 1, 2].map((attempt) => retryDelay(policy, attempt, () => 1))).toEqual([
      100, 200, 400,
    ]);
  });
});
