import { WordVectors } from '../src/embeddings/word-vectors';
import { termCounts } from '../src/mcp/search/ranking/bm25';
import {
  HybridIndex,
  type IndexedDocument,
  RANKING_WEIGHTS,
  type RankingWeights,
} from '../src/mcp/search/ranking/hybrid-index';
import { TimeSlicer } from '../src/mcp/search/ranking/time-slicer';
import { lexicalFields, semanticText } from '../src/mcp/search/ranking/tool-text';
import {
  evaluate,
  evaluationTools,
  recordedCatalogues,
  REQUESTS,
  type Retrieval,
} from './catalogues/evaluation-set';

// Chooses the ranking weights on the TUNING half of the evaluation set, never the test half:
//   node -r ts-node/register/transpile-only bench/tool-search-tuning.ts
// It prints each weighting tried, best recall@5 then recall@1 then MRR first.

async function main(): Promise<void> {
  const tools = evaluationTools(recordedCatalogues());
  const vectors = await WordVectors.load();
  const documents: IndexedDocument[] = tools.map((tool) => ({
    counts: termCounts(lexicalFields(tool.definition)),
    vector: vectors.embed(semanticText(tool.definition)),
  }));
  const tuning = REQUESTS.filter((request) => request.half === 'tuning');
  const queryVectors = new Map(tuning.map((r) => [r.request, vectors.embed(r.request)]));
  const results: { weights: RankingWeights; retrieval: Retrieval }[] = [];
  for (const synonyms of [0.3, 0.5, 0.7])
    for (const semantic of [0, 0.3, 0.5, 0.7, 1, 1.5])
      for (const semanticOnlyZ of [2, 2.5, 3]) {
        const weights = { ...RANKING_WEIGHTS, synonyms, lexical: 1, semantic, semanticOnlyZ };
        const index = await HybridIndex.build(documents, null, new TimeSlicer(Infinity), weights);
        const retrieval = evaluate(tuning, (request) =>
          index
            .rank(request, { local: queryVectors.get(request) ?? null, provider: null }, 10)
            .map((hit) => tools[hit.doc]!.name),
        );
        results.push({ weights, retrieval });
      }
  results.sort(
    (a, b) =>
      b.retrieval.recallAt5 - a.retrieval.recallAt5 ||
      b.retrieval.recallAt1 - a.retrieval.recallAt1 ||
      b.retrieval.mrr - a.retrieval.mrr,
  );
  for (const { weights, retrieval } of results.slice(0, 15))
    console.log(
      `synonyms ${weights.synonyms} semantic ${weights.semantic} semanticOnlyZ ${weights.semanticOnlyZ}: ` +
        `recall@1 ${retrieval.recallAt1.toFixed(3)} recall@5 ${retrieval.recallAt5.toFixed(3)} MRR ${retrieval.mrr.toFixed(3)}`,
    );
}

void main();
