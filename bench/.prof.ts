import { WordVectors } from '../src/embeddings/word-vectors';
import { Bm25Index } from '../src/mcp/search/ranking/bm25';
import { HybridIndex, RANKING_WEIGHTS } from '../src/mcp/search/ranking/hybrid-index';
import { TimeSlicer } from '../src/mcp/search/ranking/time-slicer';
import { ToolAnalysisCache } from '../src/mcp/search/tool-analysis';
import { evaluationTools, recordedCatalogues, REQUESTS } from './catalogues/evaluation-set';
async function main() {
  const v = await WordVectors.load();
  const cache = new ToolAnalysisCache(v);
  const tools = evaluationTools(recordedCatalogues(), 10000);
  const an = tools.map((t) => cache.analyse(t.id, t.definition));
  const docs = an.map((a) => ({ counts: a.counts, vector: a.vector }));
  const bm = await Bm25Index.build(
    docs.map((d) => d.counts),
    new TimeSlicer(Infinity),
  );
  const hy = await HybridIndex.build(docs, null, new TimeSlicer(Infinity), RANKING_WEIGHTS);
  const qs = REQUESTS.map((r) => r.request);
  for (const [label, fn] of [
    ['bm25', (q: string) => bm.score(q, 0.7)],
    ['embed', (q: string) => v.embed(q)],
    ['hybrid', (q: string) => hy.rank(q, { local: v.embed(q), provider: null }, 5)],
  ] as const) {
    const times: number[] = [];
    for (let r = 0; r < 20; r++)
      for (const q of qs) {
        const t = performance.now();
        (fn as any)(q);
        times.push(performance.now() - t);
      }
    times.sort((a, b) => a - b);
    console.log(
      label,
      'p50',
      times[Math.floor(times.length * 0.5)]!.toFixed(3),
      'p99',
      times[Math.floor(times.length * 0.99)]!.toFixed(3),
    );
  }
}
void main();
async function slow() {
  const v = await WordVectors.load();
  const cache = new ToolAnalysisCache(v);
  const tools = evaluationTools(recordedCatalogues(), 10000);
  const docs = tools
    .map((t) => cache.analyse(t.id, t.definition))
    .map((a) => ({ counts: a.counts, vector: a.vector }));
  const hy = await HybridIndex.build(docs, null, new TimeSlicer(Infinity), RANKING_WEIGHTS);
  const per = new Map<string, number[]>();
  for (let r = 0; r < 20; r++)
    for (const { request: q } of REQUESTS) {
      const t = performance.now();
      hy.rank(q, { local: v.embed(q), provider: null }, 5);
      const e = performance.now() - t;
      per.set(q, [...(per.get(q) ?? []), e]);
    }
  const rows = [...per]
    .map(([q, ts]) => [q, ts.sort((a, b) => a - b)[10]!, Math.max(...ts)] as const)
    .sort((a, b) => b[1] - a[1]);
  for (const r of rows.slice(0, 8)) console.log(r[1].toFixed(2), r[2].toFixed(2), r[0]);
}
void slow();
