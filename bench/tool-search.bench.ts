import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { EmbeddingsClient } from '../src/embeddings/embeddings-client';
import { LocalEmbeddings } from '../src/embeddings/local-embeddings.service';
import { type ProviderEmbeddings } from '../src/embeddings/provider-embeddings.service';
import { type DirectoryTool } from '../src/mcp/directory/directory-tool';
import { ToolDirectory } from '../src/mcp/directory/tool-directory';
import { mergePromotions, type Promotions } from '../src/mcp/search/promotions';
import { TOOL_SEARCH_NAME } from '../src/common/tool-name-rule';
import { ToolSearchService } from '../src/mcp/search/tool-search.service';
import { type PromotionStore } from '../src/mcp/search/promotion-store';
import {
  evaluationCorpus,
  type EvaluationProvider,
  evaluationTools,
  recordedCatalogues,
  REQUESTS,
  retrieval,
  type Retrieval,
} from './catalogues/evaluation-set';
import { startSentenceEncoder } from './catalogues/sentence-encoder-server';
import { type SemanticMemory } from './tool-search-memory';
import { asJson, runAlone } from './support';

/** The bench's promotions are kept as a 2025 session's. */
const BENCH_SESSION = { kind: 'session', sessionId: 'bench' } as const;
/** What a search's call hears and how it is counted: nothing, here. */
const UNCOUNTED = { notify: () => undefined, counted: () => Promise.resolve() };

// Deferred tool search, measured on the code the MCP endpoint runs: tools/list bytes with search
// off and on, catalogue builds and tool_search latency at 10,000 tools, retrieval quality on the
// test half of the labelled requests with each ranker on and off, and the semantic part's memory.
//   node -r ts-node/register/transpile-only bench/tool-search.bench.ts [--json]

export interface ToolSearchBenchReport {
  listBytes: {
    tools: number;
    alwaysLoaded: number;
    searchOff: number;
    searchOn: number;
    searchOnAfterFivePromotions: number;
    /** 1 - searchOn / searchOff. */
    saving: number;
  };
  latency: {
    tools: number;
    /** First build: every tool analysed. */
    coldBuildMs: number;
    coldBuildLongestBlockMs: number;
    /** A rebuild after one tool changed: only that tool analysed again. */
    warmBuildMs: number;
    warmBuildLongestBlockMs: number;
    warmBuildAnalysed: number;
    queries: number;
    /** catalogue.search alone, wall clock. */
    searchP50Ms: number;
    searchP99Ms: number;
    /**
     * The same in CPU time of this process: on a machine shared with other work, wall-clock
     * outliers are mostly time spent waiting for a core.
     */
    searchCpuP50Ms: number;
    searchCpuP99Ms: number;
    /** Load average (1 minute) when the latency run started, over the number of cores. */
    loadPerCore: number;
    /** The whole tool_search call in process: parse, rank, promote (in memory), result JSON. */
    callP50Ms: number;
    callP99Ms: number;
  };
  quality: {
    servers: number;
    tools: number;
    requests: { tuning: number; test: number };
    /** Each ranker and feature on and off, on the test half and the tuning half. */
    components: { label: string; test: Retrieval; tuning: Retrieval }[];
    /** The default, on the tuning half its weights were chosen on. */
    defaultOnTuning: Retrieval;
  };
  memory: SemanticMemory;
}

/** The promotion store as tool search uses it, in memory: the benchmark measures search, not I/O. */
class MemoryStore {
  stored: Promotions | null = null;

  async promotions(): Promise<Promotions | null> {
    return this.stored;
  }

  async promote(_owner: unknown, catalogHash: string, names: readonly string[]) {
    const next = mergePromotions(this.stored, catalogHash, names);
    const changed = JSON.stringify(next) !== JSON.stringify(this.stored);
    this.stored = next;
    return { promotions: next, changed };
  }
}

const local = new LocalEmbeddings();

function service(store: MemoryStore): ToolSearchService {
  return new ToolSearchService(store as unknown as PromotionStore, local, {
    enabled: false,
  } as ProviderEmbeddings);
}

function directory(tools: DirectoryTool[], alwaysLoaded: string[]): ToolDirectory {
  return new ToolDirectory(
    { kind: 'server', serverId: 'bench' },
    {
      id: 'bench',
      name: 'Bench',
      clientEras: 'any',
      toolSearchEnabled: true,
      toolSearchAlwaysLoaded: alwaysLoaded,
    },
    tools,
  );
}

/** Bytes of the tools/list answer as it goes on the wire (one page: MCP_PAGE_SIZE is 500). */
function listResponseBytes(tools: readonly McpTool[]): number {
  return Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools } }));
}

async function listBytes(): Promise<ToolSearchBenchReport['listBytes']> {
  const tools = evaluationTools(recordedCatalogues(), 500);
  const alwaysLoaded = ['filesystem-read_text_file', 'github-get_issue', 'gitlab-get_project'];
  const scope = directory(tools, alwaysLoaded);
  const store = new MemoryStore();
  const search = service(store);
  const searchOff = listResponseBytes(scope.definitions);
  const searchOn = listResponseBytes((await search.listed(scope, BENCH_SESSION))!);
  await search.intercept(
    scope,
    BENCH_SESSION,
    { name: TOOL_SEARCH_NAME, arguments: { query: 'review and merge the open pull request' } },
    UNCOUNTED,
  );
  const promoted = (await search.listed(scope, BENCH_SESSION))!;
  return {
    tools: tools.length,
    alwaysLoaded: alwaysLoaded.length,
    searchOff,
    searchOn,
    searchOnAfterFivePromotions: listResponseBytes(promoted),
    saving: 1 - searchOn / searchOff,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** How long `work` takes, and the longest the event loop waited meanwhile. */
async function measureBuild(work: () => Promise<unknown>): Promise<[number, number]> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = process.hrtime.bigint();
  await work();
  const ms = elapsedMs(start);
  delay.disable();
  return [ms, delay.max / 1e6];
}

async function latency(): Promise<ToolSearchBenchReport['latency']> {
  const tools = evaluationTools(recordedCatalogues(), 10_000);
  const scope = directory(tools, []);
  const store = new MemoryStore();
  const search = service(store);
  await local.load();
  const [coldBuildMs, coldBuildLongestBlockMs] = await measureBuild(() => search.searchable(scope));
  const { catalogue } = (await search.searchable(scope))!;

  const changed = tools.map((tool, i) =>
    i === 0
      ? { ...tool, definition: { ...tool.definition, description: 'Changed since the last sync.' } }
      : tool,
  );
  const analyses = (search as unknown as { analyses: Promise<{ misses: number }> }).analyses;
  const missesBefore = (await analyses).misses;
  const [warmBuildMs, warmBuildLongestBlockMs] = await measureBuild(() =>
    search.searchable(directory(changed, [])),
  );

  const queries = [
    ...REQUESTS.map((request) => request.request),
    'select:github-create_issue,slack-7-slack_post_message',
    'select:kubernetes-12-kubectl_get',
    '+github pull request review',
    '+slack_ thread',
    '+maps',
    'list',
    'file',
  ];
  const rounds = 40;
  const searchTimes: number[] = [];
  const searchCpu: number[] = [];
  const callTimes: number[] = [];
  const loadPerCore = loadavg()[0]! / cpus().length;
  for (let round = -5; round < rounds; round++) {
    for (const query of queries) {
      const cpu = process.cpuUsage();
      let start = process.hrtime.bigint();
      catalogue.search(query);
      if (round >= 0) {
        searchTimes.push(elapsedMs(start));
        const used = process.cpuUsage(cpu);
        searchCpu.push((used.user + used.system) / 1000);
      }
      // Each call as a session's first search, so promotions do not pile up.
      store.stored = null;
      start = process.hrtime.bigint();
      await search.intercept(
        scope,
        BENCH_SESSION,
        { name: TOOL_SEARCH_NAME, arguments: { query } },
        UNCOUNTED,
      );
      if (round >= 0) callTimes.push(elapsedMs(start));
    }
  }
  searchTimes.sort((a, b) => a - b);
  searchCpu.sort((a, b) => a - b);
  callTimes.sort((a, b) => a - b);
  return {
    tools: catalogue.size,
    coldBuildMs,
    coldBuildLongestBlockMs,
    warmBuildMs,
    warmBuildLongestBlockMs,
    warmBuildAnalysed: (await analyses).misses - missesBefore,
    queries: searchTimes.length,
    searchP50Ms: percentile(searchTimes, 50),
    searchP99Ms: percentile(searchTimes, 99),
    searchCpuP50Ms: percentile(searchCpu, 50),
    searchCpuP99Ms: percentile(searchCpu, 99),
    loadPerCore,
    callP50Ms: percentile(callTimes, 50),
    callP99Ms: percentile(callTimes, 99),
  };
}

/** Vectors of the evaluation tools and requests from the full sentence encoder, on loopback. */
export async function sentenceEncoderProvider(
  texts: readonly string[],
): Promise<EvaluationProvider> {
  const encoder = await startSentenceEncoder();
  try {
    const client = new EmbeddingsClient({
      url: encoder.url,
      model: 'universal-sentence-encoder-lite',
      apiKey: null,
      queryTimeoutMs: 60_000,
      indexTimeoutMs: 600_000,
    });
    const tools: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += 64)
      tools.push(...(await client.embed(texts.slice(start, start + 64), 600_000)));
    const requests = REQUESTS.map((request) => request.request);
    const vectors = await client.embed(requests, 600_000);
    const byRequest = new Map(requests.map((request, i) => [request, vectors[i]!]));
    return { tools, query: (request) => byRequest.get(request) ?? null };
  } finally {
    await encoder.close();
  }
}

/** Each ranking component off, so that a row shows what the others do without it. */
const NO_STRUCTURE = { nameCoverage: 0, intentMatch: 0, intentConflict: 0, intentNear: 0 };

async function quality(): Promise<ToolSearchBenchReport['quality']> {
  const corpus = await evaluationCorpus();
  const provider = await sentenceEncoderProvider(corpus.analyses.map((a) => a.providerText));
  const everything = { semanticOnlyZ: -Infinity };
  const components: ToolSearchBenchReport['quality']['components'] = [];
  const add = async (
    label: string,
    weights: Parameters<typeof retrieval>[2],
    withProvider = false,
  ) => {
    const vectors = withProvider ? provider : undefined;
    components.push({
      label,
      test: await retrieval(corpus, 'test', weights, vectors),
      tuning: await retrieval(corpus, 'tuning', weights, vectors),
    });
  };
  await add('BM25 alone (Porter2 stems, split identifiers, stopwords)', {
    synonyms: 0,
    semantic: 0,
    ...NO_STRUCTURE,
  });
  await add('BM25 + synonyms and abbreviations', { semantic: 0, ...NO_STRUCTURE });
  await add('Word vectors alone', { lexical: 0, ...everything, ...NO_STRUCTURE });
  await add('BM25 + synonyms + word vectors (the hybrid before action and name)', NO_STRUCTURE);
  await add('… + the action asked for against the tool’s verb', { nameCoverage: 0 });
  await add('… + how much of the tool’s name the request says', {
    intentMatch: 0,
    intentConflict: 0,
    intentNear: 0,
  });
  await add('**All four: the embedded default**', {});
  await add('The default without word vectors', { semantic: 0 });
  await add('The default without synonyms', { synonyms: 0 });
  await add(
    'Provider alone (full sentence encoder on loopback)',
    { lexical: 0, semantic: 0, ...everything, ...NO_STRUCTURE },
    true,
  );
  await add('The default with the provider instead of word vectors', { semantic: 0 }, true);
  await add('The default + provider', {}, true);
  return {
    servers: recordedCatalogues().length,
    tools: corpus.tools.length,
    requests: {
      tuning: REQUESTS.filter((r) => r.half === 'tuning').length,
      test: REQUESTS.filter((r) => r.half === 'test').length,
    },
    components,
    defaultOnTuning: await retrieval(corpus, 'tuning'),
  };
}

function memory(): SemanticMemory {
  const output = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '-r',
      'ts-node/register/transpile-only',
      join(__dirname, 'tool-search-memory.ts'),
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(output) as SemanticMemory;
}

export async function runToolSearchBench(): Promise<ToolSearchBenchReport> {
  return {
    listBytes: await listBytes(),
    latency: await latency(),
    quality: await quality(),
    memory: memory(),
  };
}

export function toolSearchMarkdown(report: ToolSearchBenchReport): string {
  const { listBytes: bytes, latency: time, quality: q, memory: mem } = report;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const ms = (n: number) => `${n.toFixed(n < 1 ? 3 : 1)} ms`;
  const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
  const lines = [
    '### Deferred tool search',
    '',
    '| Measure | Result | Target |',
    '| --- | --- | --- |',
    `| tools/list, ${bytes.tools} tools, search off | ${kb(bytes.searchOff)} | |`,
    `| tools/list, search on (${bytes.alwaysLoaded} always loaded) | ${kb(bytes.searchOn)} (${pct(bytes.saving)} smaller) | ≥ 95% smaller |`,
    `| tools/list, search on, after a search promoted 5 | ${kb(bytes.searchOnAfterFivePromotions)} | |`,
    `| catalogue build, ${time.tools} tools, first time: total / longest event-loop block | ${ms(time.coldBuildMs)} / ${ms(time.coldBuildLongestBlockMs)} | block ≤ 50 ms |`,
    `| catalogue rebuild after 1 tool changed (${time.warmBuildAnalysed} analysed again): total / longest block | ${ms(time.warmBuildMs)} / ${ms(time.warmBuildLongestBlockMs)} | block ≤ 50 ms |`,
    `| tool_search ranking, ${time.tools} tools, p50 / p99 (${time.queries} queries; load ${time.loadPerCore.toFixed(1)} per core) | ${ms(time.searchP50Ms)} / ${ms(time.searchP99Ms)} | p99 ≤ 5 ms |`,
    `| the same in CPU time of the process, p50 / p99 | ${ms(time.searchCpuP50Ms)} / ${ms(time.searchCpuP99Ms)} | |`,
    `| tool_search call in process (rank, promote, result), p50 / p99 | ${ms(time.callP50Ms)} / ${ms(time.callP99Ms)} | p99 ≤ 5 ms |`,
    `| memory added by the semantic part (${mem.words} words, ${mem.tools} tool vectors): RSS / heap + buffers | ${mem.rssMiB.toFixed(1)} MiB / ${(mem.heapMiB + mem.externalMiB).toFixed(1)} MiB | ≤ 100 MiB |`,
    '',
    `Retrieval on the test half: ${q.requests.test} requests over ${q.tools} tools of ${q.servers} MCP servers (targets for the embedded default: recall@5 ≥ 0.90, recall@1 ≥ 0.70).`,
    '',
    '| Rankers, test half (tuning half) | recall@1 | recall@5 | MRR |',
    '| --- | --- | --- | --- |',
    ...q.components.map(({ label, test, tuning }) => {
      const cell = (a: number, b: number) => `${a.toFixed(3)} (${b.toFixed(3)})`;
      return `| ${label} | ${cell(test.recallAt1, tuning.recallAt1)} | ${cell(test.recallAt5, tuning.recallAt5)} | ${cell(test.mrr, tuning.mrr)} |`;
    }),
    '',
    `The embedded default on the tuning half (${q.requests.tuning} requests), where its weights were chosen: recall@1 ${q.defaultOnTuning.recallAt1.toFixed(3)}, recall@5 ${q.defaultOnTuning.recallAt5.toFixed(3)}, MRR ${q.defaultOnTuning.mrr.toFixed(3)}.`,
  ];
  return lines.join('\n');
}

if (require.main === module) {
  runAlone(runToolSearchBench, process.argv.includes('--json') ? asJson : toolSearchMarkdown);
}
