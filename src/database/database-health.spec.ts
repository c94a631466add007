import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { type Client, type Pool } from 'pg';
import { isDatabaseUnavailable } from '../common/database-errors';
import { DatabaseHealth } from './database-health';

/** A health whose probe fails while `down.now` holds, and a pool whose connect counts its calls. */
function setUp() {
  const down = { now: false };
  const health = new DatabaseHealth(() =>
    down.now ? Promise.reject(new Error('timeout')) : Promise.resolve(),
  );
  const connects: unknown[] = [];
  const pool = {
    connect: (...args: unknown[]) => {
      connects.push(args);
      return Promise.resolve('a client');
    },
  };
  health.guard(pool as unknown as Pool);
  return {
    down,
    health,
    pool: pool as unknown as { connect: (...args: unknown[]) => unknown },
    connects,
  };
}

describe('DatabaseHealth', () => {
  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterAll(() => jest.restoreAllMocks());

  it('lets the pool connect while the probe answers', async () => {
    const { health, pool, connects } = setUp();
    await health.check();
    expect(health.available).toBe(true);
    await expect(pool.connect()).resolves.toBe('a client');
    expect(connects).toHaveLength(1);
  });

  it('turns unavailable after two failed probes in a row, not one', async () => {
    const { down, health } = setUp();
    down.now = true;
    await health.check();
    expect(health.available).toBe(true);
    await health.check();
    expect(health.available).toBe(false);
  });

  it('refuses at once while unavailable, by promise and by callback, with an error of the database', async () => {
    const { down, health, pool, connects } = setUp();
    down.now = true;
    await health.check();
    await health.check();
    const refused: unknown = await (pool.connect() as Promise<unknown>).catch((error) => error);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    const viaCallback = await new Promise((resolve) => pool.connect(resolve));
    expect(isDatabaseUnavailable(viaCallback)).toBe(true);
    expect(connects).toHaveLength(0);
  });

  it('is available again after one probe that answers', async () => {
    const { down, health, pool } = setUp();
    down.now = true;
    await health.check();
    await health.check();
    down.now = false;
    await health.check();
    expect(health.available).toBe(true);
    await expect(pool.connect()).resolves.toBe('a client');
  });

  it('ends every pooled connection once it finds the database gone, so no query waits on one', async () => {
    const { down, health } = setUp();
    const destroyed: string[] = [];
    const connection = (name: string) =>
      Object.assign(new EventEmitter(), {
        connection: { stream: { destroy: () => destroyed.push(name) } },
      }) as unknown as Client;
    const [live, ended] = [connection('live'), connection('ended')];
    health.adopt(live);
    health.adopt(ended);
    ended.emit('end');
    down.now = true;
    await health.check();
    expect(destroyed).toEqual([]);
    await health.check();
    expect(destroyed).toEqual(['live']);
  });
});
