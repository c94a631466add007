import { Tally } from './tally';

describe('Tally', () => {
  it('counts by key and in all, and forgets a key back at nothing', () => {
    const tally = new Tally();
    tally.add('alice', 3);
    tally.add('bob');
    expect([tally.of('alice'), tally.of('bob'), tally.total]).toEqual([3, 1, 4]);
    tally.release('alice', 2);
    tally.release('bob');
    expect([tally.of('alice'), tally.of('bob'), tally.total]).toEqual([1, 0, 1]);
    tally.release('alice');
    expect(tally.total).toBe(0);
    expect((tally as unknown as { counts: Map<string, number> }).counts.size).toBe(0);
  });
});
