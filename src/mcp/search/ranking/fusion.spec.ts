import { standardise, standardiseSparse, TopK } from './fusion';

describe('standardise', () => {
  it('gives the mean and the inverse deviation', () => {
    const { mean, inverseDeviation } = standardise(Float64Array.from([1, 2, 3, 4]));
    expect(mean).toBe(2.5);
    expect(inverseDeviation).toBeCloseTo(1 / Math.sqrt(1.25), 10);
  });

  it('says a ranker that scored all alike tells nothing apart', () => {
    expect(standardise(Float64Array.from([3, 3, 3])).inverseDeviation).toBe(0);
    expect(standardise(new Float64Array(0))).toEqual({ mean: 0, inverseDeviation: 0 });
  });

  it('agrees for sparse scores', () => {
    const scores = Float64Array.from([0, 2, 0, 5]);
    expect(standardiseSparse(scores, [1, 3], 4)).toEqual(standardise(scores));
  });
});

describe('TopK', () => {
  it('keeps the best, best first, ties to the lower document', () => {
    const top = new TopK(3);
    for (const [doc, score] of [
      [0, 1],
      [1, 5],
      [2, 3],
      [3, 5],
      [4, 0],
      [5, 4],
    ])
      top.offer(doc!, score!);
    expect(top.items).toEqual([
      { doc: 1, score: 5 },
      { doc: 3, score: 5 },
      { doc: 5, score: 4 },
    ]);
  });

  it('keeps nothing with a limit below one', () => {
    const top = new TopK(0);
    top.offer(0, 1);
    expect(top.items).toEqual([]);
  });
});
