import { policyToolOf } from '../../src/policies/policy-tool';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WordVectors } from '../../src/embeddings/word-vectors';
import { type DirectoryTool } from '../../src/mcp/directory/directory-tool';
import {
  HybridIndex,
  RANKING_WEIGHTS,
  type RankingWeights,
} from '../../src/mcp/search/ranking/hybrid-index';
import { TimeSlicer } from '../../src/common/time-slicer';
import { type ToolAnalysis, ToolAnalysisCache } from '../../src/mcp/search/tool-analysis';
import { type RecordedCatalogue } from './record-catalogues';
import requestsFile from './requests.json';

/** A labelled request: what a user asks, and every tool that would serve it. */
export interface LabelledRequest {
  request: string;
  relevant: string[];
  half: 'tuning' | 'test';
}

export const REQUESTS = requestsFile.requests as LabelledRequest[];

/** The recorded catalogues, in slug order. */
export function recordedCatalogues(): RecordedCatalogue[] {
  const dir = join(__dirname, 'recorded');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as RecordedCatalogue);
}

/**
 * `count` directory entries from the catalogues, or every tool once when `count` is omitted.
 * Past the first copy the servers repeat under numbered slugs, as several teams' GitHub or Slack
 * servers would.
 */
export function evaluationTools(catalogues: RecordedCatalogue[], count?: number): DirectoryTool[] {
  const total = catalogues.reduce((sum, catalogue) => sum + catalogue.tools.length, 0);
  const wanted = count ?? total;
  const tools: DirectoryTool[] = [];
  for (let copy = 0; tools.length < wanted; copy++) {
    for (const catalogue of catalogues) {
      const slug = copy === 0 ? catalogue.slug : `${catalogue.slug}-${copy}`;
      for (const tool of catalogue.tools) {
        if (tools.length === wanted) break;
        const name = `${slug}-${tool.name}`;
        tools.push({
          id: name,
          name,
          gatewayId: slug,
          gatewaySlug: slug,
          originalName: tool.name,
          toolHash: '0'.repeat(12),
          visibility: ['model', 'app'],
          definition: { ...tool, name },
          policy: policyToolOf(
            {
              id: name,
              gatewaySlug: slug,
              originalName: tool.name,
              title: null,
              annotations: null,
              contentHash: '',
              pinnedHash: null,
            },
            name,
            name,
          ),
        });
      }
    }
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface Retrieval {
  requests: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  misses: { request: string; relevant: string[]; got: string[] }[];
}

/**
 * recall@k: the share of requests with a relevant tool among the first k; MRR: the mean of
 * 1 / rank of the first relevant tool (0 when none is in the first 10).
 */
export function evaluate(
  requests: readonly LabelledRequest[],
  rank: (request: string) => string[],
): Retrieval {
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  const misses: Retrieval['misses'] = [];
  for (const { request, relevant } of requests) {
    const got = rank(request).slice(0, 10);
    const first = got.findIndex((name) => relevant.includes(name));
    if (first === 0) at1++;
    if (first >= 0 && first < 5) at5++;
    if (first >= 0) reciprocal += 1 / (first + 1);
    if (first !== 0) misses.push({ request, relevant, got: got.slice(0, 5) });
  }
  const n = requests.length || 1;
  return {
    requests: requests.length,
    recallAt1: at1 / n,
    recallAt5: at5 / n,
    mrr: reciprocal / n,
    misses,
  };
}

/** The evaluation tools, each analysed once, with the word vectors that analysed them. */
export interface EvaluationCorpus {
  tools: DirectoryTool[];
  analyses: ToolAnalysis[];
  vectors: WordVectors;
}

export async function evaluationCorpus(): Promise<EvaluationCorpus> {
  const vectors = await WordVectors.load();
  const cache = new ToolAnalysisCache(vectors);
  const tools = evaluationTools(recordedCatalogues());
  return {
    tools,
    analyses: tools.map((tool) => cache.analyse(tool.id, tool.definition, tool.originalName)),
    vectors,
  };
}

/** Provider vectors for the evaluation: one per tool, and a way to embed each request. */
export interface EvaluationProvider {
  tools: Float32Array[];
  query(request: string): Float32Array | null;
}

/** Retrieval on one half of the requests with the given weights (and provider vectors). */
export async function retrieval(
  corpus: EvaluationCorpus,
  half: LabelledRequest['half'],
  weights: Partial<RankingWeights> = {},
  provider?: EvaluationProvider,
): Promise<Retrieval> {
  const index = await HybridIndex.build(
    corpus.analyses.map((analysis) => ({
      counts: analysis.counts,
      vector: analysis.vector,
      action: analysis.action,
      name: analysis.name,
    })),
    provider?.tools ?? null,
    new TimeSlicer(Infinity),
    { ...RANKING_WEIGHTS, ...weights },
  );
  return evaluate(
    REQUESTS.filter((request) => request.half === half),
    (request) =>
      index
        .rank(
          request,
          { local: corpus.vectors.embed(request), provider: provider?.query(request) ?? null },
          10,
        )
        .map((hit) => corpus.tools[hit.doc]!.name),
  );
}
