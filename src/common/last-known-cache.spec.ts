import { Logger } from '@nestjs/common';
import { LastKnownCache } from './last-known-cache';

const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: '57P03' });

function cache(ttlMs = 1000) {
  const stale = { count: 0 };
  const lastKnown = new LastKnownCache<string | null>({
    ttlMs: () => ttlMs,
    limit: 100,
    onStale: () => (stale.count += 1),
    logger: new Logger('test'),
    describe: (key) => key,
  });
  return { lastKnown, stale };
}

/** A read that answers `value`, or fails as an unavailable database when `value` is an Error. */
function reader(values: (string | null | Error)[]) {
  const calls = { count: 0 };
  const read = async () => {
    const value = values[Math.min(calls.count, values.length - 1)]!;
    calls.count += 1;
    if (value instanceof Error) throw value;
    return value;
  };
  return { read, calls };
}

describe('LastKnownCache', () => {
  it('reads once within the TTL', async () => {
    const { lastKnown } = cache();
    const { read, calls } = reader(['a', 'b']);
    expect(await lastKnown.get('k', read, 0)).toBe('a');
    expect(await lastKnown.get('k', read, 500)).toBe('a');
    expect(calls.count).toBe(1);
  });

  it('answers what it knows past the TTL and reads again behind the answer', async () => {
    const { lastKnown } = cache();
    const { read, calls } = reader(['a', 'b']);
    await lastKnown.get('k', read, 0);
    expect(await lastKnown.get('k', read, 2000)).toBe('a');
    await Promise.resolve();
    expect(calls.count).toBe(2);
    expect(await lastKnown.get('k', read, 2500)).toBe('b');
  });

  it('keeps answering what it knew while the database is unavailable, and takes the fresh value once it is back', async () => {
    const { lastKnown, stale } = cache();
    const { read } = reader(['a', refused(), refused(), 'b']);
    await lastKnown.get('k', read, 0);
    lastKnown.invalidateAll();
    // Read first after a resync; the outage is bridged with what was known.
    expect(await lastKnown.get('k', read, 10)).toBe('a');
    // From then on at once, with a read behind each answer.
    expect(await lastKnown.get('k', read, 20)).toBe('a');
    expect(stale.count).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    // The read behind that answer failed too; this one's succeeds.
    expect(await lastKnown.get('k', read, 30)).toBe('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await lastKnown.get('k', read, 40)).toBe('b');
    expect(stale.count).toBe(3);
  });

  it('bridges every request that shared the failed read, not only the first', async () => {
    const { lastKnown } = cache();
    const { read, calls } = reader(['a', refused()]);
    await lastKnown.get('k', read, 0);
    lastKnown.invalidateAll();
    const answers = await Promise.all([1, 2, 3].map(() => lastKnown.get('k', read, 10)));
    expect(answers).toEqual(['a', 'a', 'a']);
    expect(calls.count).toBe(2);
  });

  it('never serves an entry an announced change dropped, nor bridges with it', async () => {
    const { lastKnown } = cache();
    const { read } = reader(['a', refused()]);
    await lastKnown.get('k', read, 0);
    lastKnown.delete('k');
    await expect(lastKnown.get('k', read, 10)).rejects.toThrow('ECONNREFUSED');
  });

  it('reads again at once what it found missing, and throws other failures', async () => {
    const { lastKnown } = cache();
    const { read, calls } = reader([null, 'a']);
    expect(await lastKnown.get('k', read, 0)).toBeNull();
    expect(await lastKnown.get('k', read, 2000)).toBe('a');
    expect(calls.count).toBe(2);
    lastKnown.invalidateAll();
    await expect(
      lastKnown.get('k', () => Promise.reject(new TypeError('a bug')), 2100),
    ).rejects.toThrow('a bug');
  });

  it('does not keep a read that an invalidation overtook', async () => {
    const { lastKnown } = cache();
    let release!: (value: string) => void;
    const pending = lastKnown.get('k', () => new Promise<string>((r) => (release = r)), 0);
    lastKnown.delete('k');
    release('old');
    expect(await pending).toBe('old');
    expect(await lastKnown.get('k', async () => 'new', 1)).toBe('new');
  });
});
