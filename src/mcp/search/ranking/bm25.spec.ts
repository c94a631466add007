import { Bm25Index, termCounts } from './bm25';
import { TimeSlicer } from '../../../common/time-slicer';

const doc = (text: string) => termCounts([{ text, weight: 1 }]);
const build = (docs: ReturnType<typeof termCounts>[]) =>
  Bm25Index.build(docs, new TimeSlicer(Infinity));
const ranked = (index: Bm25Index, query: string, synonyms = 0) => {
  const { scores, touched } = index.score(query, synonyms);
  return [...touched].sort((a, b) => scores[b]! - scores[a]! || a - b);
};

describe('termCounts', () => {
  it('adds up field weights per term and in the length', () => {
    const counts = termCounts([
      { text: 'read file', weight: 3 },
      { text: 'file contents', weight: 1 },
    ]);
    expect(Object.fromEntries(counts.terms.map((term, i) => [term, counts.counts[i]]))).toEqual({
      read: 3,
      file: 4,
      content: 1,
    });
    expect(counts.length).toBe(8);
  });
});

describe('Bm25Index', () => {
  it('ranks the document with more of the rarer query terms first', async () => {
    const index = await build([
      doc('read a file from disk'),
      doc('send a slack message to a channel'),
      doc('post a message'),
      doc('list files in a directory'),
    ]);
    expect(ranked(index, 'send message to slack')).toEqual([1, 2]);
    expect(ranked(index, 'files')).toEqual([0, 3]);
  });

  it('normalises by length: the same match in a shorter document scores higher', async () => {
    const index = await build([
      doc('weather forecast for a city with many other unrelated words here'),
      doc('weather forecast'),
    ]);
    const { scores } = index.score('weather', 0);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
  });

  it('reaches synonyms at their weight, counting only the best of a word and its synonyms', async () => {
    const index = await build([
      doc('remove a folder'),
      doc('delete a folder'),
      doc('delete remove erase'),
    ]);
    expect(ranked(index, 'delete')).toEqual([1, 2]);
    expect(ranked(index, 'delete', 0.5)).toEqual([1, 2, 0]);
    // The third holds delete, remove and erase: it scores for delete once, not three times.
    const alone = (word: string) => index.score(word, 0).scores[2]!;
    const best = Math.max(alone('delete'), 0.5 * alone('remove'), 0.5 * alone('erase'));
    expect(index.score('delete', 0.5).scores[2]).toBeCloseTo(best, 12);
  });

  it('finds nothing for unknown terms, an empty query or an empty index', async () => {
    const index = await build([doc('file')]);
    expect(index.score('nothing here', 0.5).touched).toEqual([]);
    expect(index.score('   ', 0.5).touched).toEqual([]);
    expect((await build([])).score('file', 0.5).touched).toEqual([]);
  });

  it('answers each query afresh, though it reuses its buffers', async () => {
    const index = await build([doc('alpha'), doc('beta')]);
    expect(ranked(index, 'alpha')).toEqual([0]);
    expect(ranked(index, 'beta')).toEqual([1]);
    expect(index.score('beta', 0).scores[0]).toBe(0);
  });
});
