import { createHash } from 'node:crypto';
import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type WordVectors } from '../../embeddings/word-vectors';
import { type DirectoryTool } from '../directory/directory-tool';
import { HybridIndex, type IndexedDocument, type RankingWeights } from './ranking/hybrid-index';
import { TimeSlicer } from '../../common/time-slicer';
import { type ToolAnalysis, type ToolAnalysisCache } from './tool-analysis';
import { parseToolQuery, searchLimit } from './tool-query';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';

/** How many deferred tools one gateway contributes. */
export interface GatewayShare {
  gateway: string;
  tools: number;
}

/** Longest a catalogue build holds the event loop before it lets other work run. */
const BUILD_SLICE_MS = 10;

/** What a catalogue build reuses and ranks with. */
export interface CatalogueBuild {
  analyses: ToolAnalysisCache;
  /** The embedded word vectors; null ranks by BM25 (and the provider) alone. */
  wordVectors: WordVectors | null;
  weights?: RankingWeights;
}

/** Narrows and informs one search. */
export interface SearchOptions {
  /** Only tools of this gateway slug (case-insensitive). */
  gateway?: string;
  /** The query's vector from the embeddings provider, when there is one. */
  providerVector?: Float32Array | null;
}

/**
 * The immutable deferred catalogue of one scope: every tool the scope serves to the model, except
 * the always-loaded ones. Built from a ToolDirectory, which has already applied every filter
 * (enabled tool, enabled gateway, server membership), so an unusable tool is never searchable.
 * Its `hash` covers the sorted names and definitions; promotions are only valid under it.
 *
 * Its ranking index can be swapped once for one that also holds the embeddings provider's
 * vectors, when they arrive; what the catalogue holds never changes.
 */
export class ToolCatalogue {
  private constructor(
    /** The deferred definitions, sorted by name. */
    readonly tools: readonly McpTool[],
    readonly hash: string,
    /** Deferred tools per gateway, most first. */
    readonly gateways: readonly GatewayShare[],
    /** Per position, the tool's gateway slug in lower case. */
    private readonly slugs: readonly string[],
    /** Per position, what ranking knows of the tool. */
    readonly analyses: readonly ToolAnalysis[],
    private readonly positions: ReadonlyMap<string, number>,
    private index: HybridIndex,
    private readonly weights: RankingWeights | undefined,
    private readonly wordVectors: WordVectors | null,
  ) {}

  /**
   * Builds in slices of the event loop, so that even 10,000 tools never hold it for long, and
   * reuses the analysis of every tool that has not changed since an earlier build.
   */
  static async build(
    deferred: readonly DirectoryTool[],
    build: CatalogueBuild,
  ): Promise<ToolCatalogue> {
    const slicer = new TimeSlicer(BUILD_SLICE_MS);
    const sorted = [...deferred].sort((a, b) => compare(a.name, b.name));
    const analyses: ToolAnalysis[] = [];
    const hash = createHash('sha256');
    for (const tool of sorted) {
      const analysis = build.analyses.analyse(tool.id, tool.definition, tool.originalName);
      analyses.push(analysis);
      hash.update(`${tool.name}\u0000${analysis.contentHash}\n`);
      await slicer.check();
    }
    const index = await HybridIndex.build(analyses.map(indexed), null, slicer, build.weights);
    return new ToolCatalogue(
      sorted.map((tool) => tool.definition),
      hash.digest('hex'),
      shares(sorted),
      sorted.map((tool) => tool.gatewaySlug.toLowerCase()),
      analyses,
      new Map(sorted.map((tool, position) => [tool.name, position])),
      index,
      build.weights,
      build.wordVectors,
    );
  }

  get size(): number {
    return this.tools.length;
  }

  /** Whether the ranking holds the embeddings provider's tool vectors. */
  get usesProviderVectors(): boolean {
    return this.index.hasProviderVectors;
  }

  /** Adds the provider's vectors of the tools (by position) to the ranking. */
  async attachProviderVectors(vectors: readonly (Float32Array | null)[]): Promise<void> {
    this.index = await HybridIndex.build(
      this.analyses.map(indexed),
      vectors,
      new TimeSlicer(BUILD_SLICE_MS),
      this.weights,
    );
  }

  /** Whether `name` is deferred here. */
  has(name: string): boolean {
    return this.positions.has(name);
  }

  /** The definitions a `tool_search` query matches, best first. Never throws. */
  search(query: string, limit?: number, options: SearchOptions = {}): McpTool[] {
    const parsed = parseToolQuery(query);
    const max = searchLimit(parsed, limit);
    const gateway = options.gateway?.trim().toLowerCase();
    const inGateway = (position: number) => !gateway || this.slugs[position] === gateway;
    const vectors = (text: string) => ({
      local: this.wordVectors?.embed(text) ?? null,
      provider: options.providerVector ?? null,
    });
    switch (parsed.kind) {
      case 'none':
        return [];
      case 'select':
        return parsed.names
          .map((name) => this.positions.get(name))
          .filter((position) => position !== undefined && inGateway(position))
          .slice(0, max)
          .map((position) => this.tools[position!]!);
      case 'require': {
        const matching = (position: number) =>
          inGateway(position) && this.tools[position]!.name.toLowerCase().includes(parsed.term);
        const ranked = this.index
          .rank(parsed.rest, vectors(parsed.rest), max, matching)
          .map((hit) => hit.doc);
        // Names that hold the term but none of the ranking words still match; they come after,
        // in name order.
        const seen = new Set(ranked);
        for (let position = 0; position < this.tools.length && ranked.length < max; position++) {
          if (!seen.has(position) && matching(position)) ranked.push(position);
        }
        return ranked.map((position) => this.tools[position]!);
      }
      case 'text':
        return this.index
          .rank(parsed.text, vectors(parsed.text), max, gateway ? inGateway : undefined)
          .map((hit) => this.tools[hit.doc]!);
    }
  }
}

/**
 * The catalogue for a scope's tools: all but the always-loaded ones, the built-in's namesake, and
 * tools only MCP Apps may call (hosts never show those to the model, so there is nothing to defer).
 */
export function deferredTools(
  tools: readonly DirectoryTool[],
  alwaysLoaded: readonly string[],
): DirectoryTool[] {
  const kept = new Set(alwaysLoaded);
  return tools.filter(
    (tool) =>
      tool.visibility.includes('model') && !kept.has(tool.name) && tool.name !== TOOL_SEARCH_NAME,
  );
}

/** What the ranking index keeps of an analysed tool. */
function indexed(analysis: ToolAnalysis): IndexedDocument {
  return {
    counts: analysis.counts,
    vector: analysis.vector,
    action: analysis.action,
    name: analysis.name,
  };
}

function shares(tools: readonly DirectoryTool[]): GatewayShare[] {
  const counts = new Map<string, number>();
  for (const tool of tools) {
    // A consolidated tool has no gateway of its own; no slug can be spelled with parentheses.
    const gateway = tool.consolidated ? '(consolidated)' : tool.gatewaySlug;
    counts.set(gateway, (counts.get(gateway) ?? 0) + 1);
  }
  return [...counts]
    .map(([gateway, count]) => ({ gateway, tools: count }))
    .sort((a, b) => b.tools - a.tools || compare(a.gateway, b.gateway));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
