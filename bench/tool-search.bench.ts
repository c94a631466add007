import { type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type AppConfig } from '../src/config/app-config';
import { type DirectoryTool, ToolDirectory } from '../src/mcp/calls/tool-directory';
import { mergePromotions, type Promotions } from '../src/mcp/search/promotions';
import { buildToolCatalogue, TOOL_SEARCH_NAME } from '../src/mcp/search/tool-catalogue';
import { ToolSearchService } from '../src/mcp/search/tool-search.service';
import { type SessionStore } from '../src/mcp/session/session.store';
import catalogueFixture from './fixtures/mcp-tool-catalogue.json';
import { asJson, runAlone } from './support';

// Deferred tool search, measured on the code the MCP endpoint runs: tools/list bytes with search
// off and on, tool_search latency at 10,000 tools, and recall of a labelled query set.
//   node -r ts-node/register/transpile-only bench/tool-search.bench.ts [--json]

interface Fixture {
  servers: { slug: string; tools: McpTool[] }[];
  queries: { query: string; relevant: string[] }[];
}

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
    catalogueBuildMs: number;
    queries: number;
    /** catalogue.search alone. */
    searchP50Ms: number;
    searchP99Ms: number;
    /** The whole tool_search call in process: parse, rank, promote (in memory), result JSON. */
    callP50Ms: number;
    callP99Ms: number;
  };
  quality: {
    servers: number;
    tools: number;
    queries: number;
    recallAt5: number;
    hitAt1: number;
    hitAt5: number;
    misses: { query: string; relevant: string[]; got: string[] }[];
  };
}

/**
 * `count` tools from the fixture's servers, as directory entries. Past the first copy the servers
 * repeat under numbered slugs, as several teams' GitHub or Slack servers would.
 */
function corpus(fixture: Fixture, count: number): DirectoryTool[] {
  const tools: DirectoryTool[] = [];
  for (let copy = 0; tools.length < count; copy++) {
    for (const server of fixture.servers) {
      const slug = copy === 0 ? server.slug : `${server.slug}-${copy}`;
      for (const tool of server.tools) {
        if (tools.length === count) break;
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
        });
      }
    }
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The session store as tool search uses it, in memory: the benchmark measures search, not I/O. */
class MemoryStore {
  stored: Promotions | null = null;

  async promotions(): Promise<Promotions | null> {
    return this.stored;
  }

  async promote(_id: string, catalogHash: string, names: readonly string[]) {
    const next = mergePromotions(this.stored, catalogHash, names);
    const changed = JSON.stringify(next) !== JSON.stringify(this.stored);
    this.stored = next;
    return { promotions: next, changed };
  }
}

function service(store: MemoryStore): ToolSearchService {
  const config = { mcpToolSearch: { enabled: false, alwaysLoaded: [] } } as unknown as AppConfig;
  return new ToolSearchService(config, store as unknown as SessionStore);
}

function directory(tools: DirectoryTool[], alwaysLoaded: string[]): ToolDirectory {
  return new ToolDirectory(
    { kind: 'server', serverId: 'bench' },
    { id: 'bench', name: 'Bench', toolSearchEnabled: true, toolSearchAlwaysLoaded: alwaysLoaded },
    tools,
  );
}

/** Bytes of the tools/list answer as it goes on the wire (one page: MCP_PAGE_SIZE is 500). */
function listResponseBytes(tools: readonly McpTool[]): number {
  return Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools } }));
}

async function listBytes(fixture: Fixture): Promise<ToolSearchBenchReport['listBytes']> {
  const tools = corpus(fixture, 500);
  const alwaysLoaded = ['filesystem-read_text_file', 'github-get_me', 'time-get_current_time'];
  const scope = directory(tools, alwaysLoaded);
  const store = new MemoryStore();
  const search = service(store);
  const searchOff = listResponseBytes(scope.definitions);
  const searchOn = listResponseBytes((await search.listed(scope, 'bench'))!);
  await search.intercept(
    scope,
    'bench',
    { name: TOOL_SEARCH_NAME, arguments: { query: 'open pull requests review merge' } },
    () => undefined,
  );
  const promoted = (await search.listed(scope, 'bench'))!;
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

async function latency(fixture: Fixture): Promise<ToolSearchBenchReport['latency']> {
  const tools = corpus(fixture, 10_000);
  const scope = directory(tools, []);
  const store = new MemoryStore();
  const search = service(store);
  const building = process.hrtime.bigint();
  const { catalogue } = search.searchable(scope)!;
  const catalogueBuildMs = elapsedMs(building);

  const queries = [
    ...fixture.queries.map((query) => query.query),
    'select:github-create_issue,slack-7-slack_post_message',
    'select:time-42-convert_time',
    '+github pull request review',
    '+slack_ thread',
    '+maps',
    'list',
    'file',
  ];
  const rounds = 200;
  const searchTimes: number[] = [];
  const callTimes: number[] = [];
  for (let round = -20; round < rounds; round++) {
    for (const query of queries) {
      let start = process.hrtime.bigint();
      catalogue.search(query);
      if (round >= 0) searchTimes.push(elapsedMs(start));
      // Each call as a session's first search, so promotions do not pile up over 8,000 calls.
      store.stored = null;
      start = process.hrtime.bigint();
      await search.intercept(
        scope,
        'bench',
        { name: TOOL_SEARCH_NAME, arguments: { query } },
        () => undefined,
      );
      if (round >= 0) callTimes.push(elapsedMs(start));
    }
  }
  searchTimes.sort((a, b) => a - b);
  callTimes.sort((a, b) => a - b);
  return {
    tools: catalogue.size,
    catalogueBuildMs,
    queries: searchTimes.length,
    searchP50Ms: percentile(searchTimes, 50),
    searchP99Ms: percentile(searchTimes, 99),
    callP50Ms: percentile(callTimes, 50),
    callP99Ms: percentile(callTimes, 99),
  };
}

function quality(fixture: Fixture): ToolSearchBenchReport['quality'] {
  const tools = corpus(
    fixture,
    fixture.servers.reduce((sum, server) => sum + server.tools.length, 0),
  );
  const catalogue = buildToolCatalogue(tools, []);
  let recall = 0;
  let hitAt1 = 0;
  let hitAt5 = 0;
  const misses: ToolSearchBenchReport['quality']['misses'] = [];
  for (const { query, relevant } of fixture.queries) {
    const got = catalogue.search(query, 5).map((tool) => tool.name);
    const found = relevant.filter((name) => got.includes(name)).length;
    recall += found / relevant.length;
    if (relevant.includes(got[0] ?? '')) hitAt1 += 1;
    if (found > 0) hitAt5 += 1;
    if (found < relevant.length) misses.push({ query, relevant, got });
  }
  const count = fixture.queries.length;
  return {
    servers: fixture.servers.length,
    tools: catalogue.size,
    queries: count,
    recallAt5: recall / count,
    hitAt1: hitAt1 / count,
    hitAt5: hitAt5 / count,
    misses,
  };
}

export async function runToolSearchBench(): Promise<ToolSearchBenchReport> {
  const fixture = catalogueFixture as Fixture;
  return {
    listBytes: await listBytes(fixture),
    latency: await latency(fixture),
    quality: quality(fixture),
  };
}

export function toolSearchMarkdown(report: ToolSearchBenchReport): string {
  const { listBytes: bytes, latency: time, quality: q } = report;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
  const lines = [
    '### Deferred tool search',
    '',
    '| Measure | Result | Target |',
    '| --- | --- | --- |',
    `| tools/list, ${bytes.tools} tools, search off | ${kb(bytes.searchOff)} | |`,
    `| tools/list, search on (${bytes.alwaysLoaded} always loaded) | ${kb(bytes.searchOn)} (${pct(bytes.saving)} smaller) | ≥ 95% smaller |`,
    `| tools/list, search on, after a search promoted 5 | ${kb(bytes.searchOnAfterFivePromotions)} | |`,
    `| catalogue build, ${time.tools} tools (once per catalogue change) | ${ms(time.catalogueBuildMs)} | |`,
    `| tool_search ranking, ${time.tools} tools, p50 / p99 (${time.queries} queries) | ${ms(time.searchP50Ms)} / ${ms(time.searchP99Ms)} | p99 < 5 ms |`,
    `| tool_search call in process (rank, promote, result), p50 / p99 | ${ms(time.callP50Ms)} / ${ms(time.callP99Ms)} | p99 < 5 ms |`,
    `| recall@5, ${q.queries} labelled queries over ${q.tools} tools of ${q.servers} MCP servers | ${pct(q.recallAt5)} (hit@1 ${pct(q.hitAt1)}, hit@5 ${pct(q.hitAt5)}) | |`,
  ];
  if (q.misses.length > 0) {
    lines.push('', 'Queries where a relevant tool was not in the top 5:');
    for (const miss of q.misses) {
      lines.push(
        `- "${miss.query}": wanted ${miss.relevant.join(', ')}; got ${miss.got.join(', ') || 'nothing'}`,
      );
    }
  }
  return lines.join('\n');
}

if (require.main === module) {
  runAlone(runToolSearchBench, process.argv.includes('--json') ? asJson : toolSearchMarkdown);
}
