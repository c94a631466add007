import { boundedAll } from './bounded-all';

describe('boundedAll', () => {
  it('runs at most `limit` at a time, and answers in the order of the items', async () => {
    let running = 0;
    let most = 0;
    const results = await boundedAll([5, 1, 4, 2, 3, 0], 3, async (ms) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      return ms * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(3);
  });

  it('answers nothing for no items', async () => {
    await expect(boundedAll([], 4, () => Promise.resolve(1))).resolves.toEqual([]);
  });
});
