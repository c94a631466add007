import { termCounts } from './bm25';
import { HybridIndex, type IndexedDocument, RANKING_WEIGHTS } from './hybrid-index';
import { Action } from './intent';
import { TimeSlicer } from '../../../common/time-slicer';

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((x) => x / norm));
};

function doc(text: string, vector: Float32Array | null): IndexedDocument {
  return { counts: termCounts([{ text, weight: 1 }]), vector };
}

const build = (docs: IndexedDocument[], provider: (Float32Array | null)[] | null = null) =>
  HybridIndex.build(docs, provider, new TimeSlicer(Infinity), RANKING_WEIGHTS);

// Ten documents: the weather one points one way in the vector space, the rest mostly another.
const DOCS = [
  doc('weather forecast for a city', unit(1, 0)),
  doc('rain radar', unit(0.2, 0.98)),
  ...Array.from({ length: 8 }, (_, i) => doc(`ledger entry number ${i}`, unit(0, 1))),
];

describe('HybridIndex', () => {
  it('ranks by words when the vectors do not tell the documents apart', async () => {
    const index = await build(DOCS.map((d) => ({ ...d, vector: unit(1, 1) })));
    const hits = index.rank('weather', { local: unit(1, 1), provider: null }, 3);
    expect(hits.map((hit) => hit.doc)).toEqual([0]);
  });

  it('finds a document no query word matches when its vector stands well apart', async () => {
    const index = await build(DOCS);
    const hits = index.rank('umbrella', { local: unit(1, 0), provider: null }, 3);
    expect(hits.map((hit) => hit.doc)).toEqual([0]);
  });

  it('fuses: the vectors order documents the words match alike', async () => {
    const index = await build(DOCS.map((d, i) => (i === 6 ? { ...d, vector: unit(1, 0) } : d)));
    // "entry" matches the eight ledger documents alike; the vector prefers the seventh.
    const hits = index.rank('ledger entry', { local: unit(1, 0), provider: null }, 2);
    expect(hits.map((hit) => hit.doc)).toEqual([6, 2]);
  });

  it('ranks with the provider’s vectors when it has them', async () => {
    const provider = DOCS.map((_, i) => (i === 5 ? unit(0, 1) : unit(1, 0)));
    const index = await build(DOCS, provider);
    expect(index.hasProviderVectors).toBe(true);
    const hits = index.rank('zzqx', { local: null, provider: unit(0, 1) }, 1);
    expect(hits.map((hit) => hit.doc)).toEqual([5]);
  });

  it('answers documents that all match alike, even a single one', async () => {
    const single = await build([doc('ledger entry', null)]);
    expect(single.rank('ledger', { local: null, provider: null }, 5)).toEqual([
      { doc: 0, score: 0 },
    ]);
    const alike = await build([doc('ledger words', null), doc('ledger words', null)]);
    expect(alike.rank('ledger', { local: null, provider: null }, 5).map((hit) => hit.doc)).toEqual([
      0, 1,
    ]);
  });

  it('keeps to accepted documents and the limit, and finds nothing for nothing', async () => {
    const index = await build(DOCS);
    const odd = index.rank('ledger entry', { local: null, provider: null }, 2, (d) => d % 2 === 1);
    expect(odd.map((hit) => hit.doc)).toEqual([3, 5]);
    expect(index.rank('ledger', { local: null, provider: null }, 0)).toEqual([]);
    expect(index.rank('zzqx', { local: null, provider: null }, 5)).toEqual([]);
    expect((await build([])).rank('weather', { local: unit(1, 0), provider: null }, 5)).toEqual([]);
  });

  it('prefers, among tools the words match alike, the one whose verb the request asks for', async () => {
    const siblings = [Action.Create, Action.Read, Action.Delete].map((action) => ({
      ...doc('issue tracker entry', null),
      action,
    }));
    const index = await build([...siblings, ...DOCS]);
    const first = (query: string) =>
      index.rank(query, { local: null, provider: null }, 1).map((hit) => hit.doc);
    expect(first('which issue entries are there')).toEqual([1]);
    expect(first('get rid of that issue entry')).toEqual([2]);
    expect(first('make an issue entry')).toEqual([0]);
  });

  it('prefers, among tools the words match alike, the one whose name the request says more of', async () => {
    const siblings = [
      ['channel', 'histori'],
      ['list', 'channel'],
    ].map((name) => ({
      ...doc('slack channel messages', null),
      name,
    }));
    const index = await build([...siblings, ...DOCS]);
    const hits = index.rank('slack channel list', { local: null, provider: null }, 2);
    expect(hits.map((hit) => hit.doc)).toEqual([1, 0]);
  });
});
