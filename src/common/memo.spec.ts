import { Memo } from './memo';

describe('Memo', () => {
  it('keeps what it is given up to its limit, then forgets everything at once', () => {
    const memo = new Memo<string, number>(2);
    expect(memo.remember('a', 1)).toBe(1);
    memo.remember('b', 2);
    // Replacing a kept key is no growth: nothing is forgotten.
    memo.remember('a', 3);
    expect([...memo]).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    memo.remember('c', 4);
    expect([...memo]).toEqual([['c', 4]]);
  });
});
