import { CapacityRefusal, ConcurrencyLimiter, type Release } from './concurrency-limiter';

describe('ConcurrencyLimiter', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('runs up to the cap at once, queues the next ones in order, and refuses past the queue', async () => {
    const limiter = new ConcurrencyLimiter({
      maxConcurrent: 2,
      maxQueue: 2,
      queueTimeoutMs: 60_000,
    });
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const order: number[] = [];
    const third = limiter.acquire().then((release) => (order.push(3), release));
    const fourth = limiter.acquire().then((release) => (order.push(4), release));
    expect(limiter.active).toBe(2);
    expect(limiter.queued).toBe(2);
    const refused = await limiter.acquire().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CapacityRefusal);
    expect((refused as CapacityRefusal).reason).toBe('queue-full');
    expect((refused as Error).message).toMatch(/2 calls are running and 2 waiting/);

    first();
    second();
    const released = await Promise.all([third, fourth]);
    expect(order).toEqual([3, 4]);
    expect(limiter.active).toBe(2);
    expect(limiter.queued).toBe(0);
    released.forEach((release) => release());
    expect(limiter.active).toBe(0);
  });

  it('gives a freed slot to the queue before any newcomer', async () => {
    const limiter = new ConcurrencyLimiter({
      maxConcurrent: 1,
      maxQueue: 5,
      queueTimeoutMs: 60_000,
    });
    const release = await limiter.acquire();
    let waiterGot = false;
    const waiting = limiter.acquire().then((next) => ((waiterGot = true), next));
    release();
    const newcomer = limiter.acquire();
    (await waiting)();
    expect(waiterGot).toBe(true);
    (await newcomer)();
    expect(limiter.active).toBe(0);
  });

  it('refuses a call that waited past the queue timeout, and forgets it', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 20 });
    const release = await limiter.acquire();
    const refused = await limiter.acquire().catch((error: unknown) => error);
    expect((refused as CapacityRefusal).reason).toBe('queue-timeout');
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it('lets a caller give up while waiting, with its own reason', async () => {
    const limiter = new ConcurrencyLimiter({
      maxConcurrent: 1,
      maxQueue: 5,
      queueTimeoutMs: 60_000,
    });
    const release = await limiter.acquire();
    const abort = new AbortController();
    const waiting = limiter.acquire(abort.signal).catch((error: unknown) => error);
    await settle();
    abort.abort(new Error('client left'));
    expect(await waiting).toEqual(new Error('client left'));
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it('counts a slot once however often it is released', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrent: 2, maxQueue: 0, queueTimeoutMs: 10 });
    const release: Release = await limiter.acquire();
    await limiter.acquire();
    release();
    release();
    expect(limiter.active).toBe(1);
  });
});
