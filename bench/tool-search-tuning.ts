import { type RankingWeights } from '../src/mcp/search/ranking/hybrid-index';
import {
  evaluationCorpus,
  type EvaluationProvider,
  retrieval,
  type Retrieval,
} from './catalogues/evaluation-set';
import { sentenceEncoderProvider } from './tool-search.bench';

// Chooses the ranking weights on the TUNING half of the evaluation set, never the test half:
//   node -r ts-node/register/transpile-only bench/tool-search-tuning.ts [--provider]
// With --provider it weighs the provider's vectors (the full sentence encoder on loopback) instead.
// Prints each weighting tried, best first: by recall@1 + recall@5 (both have targets), then MRR.
// The chosen weights are RANKING_WEIGHTS in src/mcp/search/ranking/hybrid-index.ts.

async function main(): Promise<void> {
  const corpus = await evaluationCorpus();
  const results: { weights: Partial<RankingWeights>; result: Retrieval }[] = [];
  if (process.argv.includes('--provider')) {
    const provider: EvaluationProvider = await sentenceEncoderProvider(
      corpus.analyses.map((analysis) => analysis.providerText),
    );
    for (const semantic of [0, 0.25, 0.5])
      for (const weight of [0.25, 0.5, 0.75, 1, 1.5, 2]) {
        const weights = { semantic, provider: weight };
        results.push({ weights, result: await retrieval(corpus, 'tuning', weights, provider) });
      }
  } else {
    for (const synonyms of [0, 0.3, 0.5, 0.7])
      for (const semantic of [0, 0.25, 0.5, 0.75, 1, 1.5]) {
        const weights = { synonyms, lexical: 1, semantic };
        results.push({ weights, result: await retrieval(corpus, 'tuning', weights) });
      }
    for (const nameCoverage of [0, 1, 2, 3, 4])
      for (const intentMatch of [0, 0.5, 1, 1.5])
        for (const intentConflict of [0, 0.5, 1, 1.5])
          for (const intentNear of [0, 0.5]) {
            const weights = { nameCoverage, intentMatch, intentConflict, intentNear };
            results.push({ weights, result: await retrieval(corpus, 'tuning', weights) });
          }
  }
  // Both targets count: recall@1 and recall@5 together, then MRR.
  const merit = (result: Retrieval) => result.recallAt1 + result.recallAt5;
  results.sort((a, b) => merit(b.result) - merit(a.result) || b.result.mrr - a.result.mrr);
  for (const { weights, result } of results)
    console.log(
      `${JSON.stringify(weights)}: recall@1 ${result.recallAt1.toFixed(3)}, recall@5 ${result.recallAt5.toFixed(3)}, MRR ${result.mrr.toFixed(3)}`,
    );
}

void main();
