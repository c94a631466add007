import { createHash } from 'node:crypto';
import { type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type DirectoryTool } from '../calls/tool-directory';
import { Bm25Index, type WeightedText } from './bm25';
import { parseToolQuery, searchLimit } from './tool-query';

/** The built-in search tool's name. With search on it takes precedence over any tool so named. */
export const TOOL_SEARCH_NAME = 'tool_search';

/** How many deferred tools one gateway contributes. */
export interface GatewayShare {
  gateway: string;
  tools: number;
}

/** Field boosts: a term in the name says more about a tool than one in a long description. */
const NAME_WEIGHT = 3;
const ARGUMENT_NAME_WEIGHT = 1.5;
const TEXT_WEIGHT = 1;

/**
 * The immutable deferred catalogue of one scope: every tool the scope serves to the model, except
 * the always-loaded ones. Built from a ToolDirectory, which has already applied every filter
 * (enabled tool, enabled gateway, server membership), so an unusable tool is never searchable.
 * Its `hash` covers the sorted names and definitions; promotions are only valid under it.
 */
export class ToolCatalogue {
  /** The deferred definitions, sorted by name. */
  readonly tools: readonly McpTool[];
  readonly hash: string;
  /** Deferred tools per gateway, most first. */
  readonly gateways: readonly GatewayShare[];
  private readonly positions: ReadonlyMap<string, number>;
  private readonly index: Bm25Index;

  constructor(deferred: readonly DirectoryTool[]) {
    const sorted = [...deferred].sort((a, b) => compare(a.name, b.name));
    this.tools = sorted.map((tool) => tool.definition);
    this.positions = new Map(sorted.map((tool, position) => [tool.name, position]));
    this.hash = contentHash(this.tools);
    this.gateways = shares(sorted);
    this.index = Bm25Index.build(this.tools.map(searchableFields));
  }

  get size(): number {
    return this.tools.length;
  }

  /** Whether `name` is deferred here. */
  has(name: string): boolean {
    return this.positions.has(name);
  }

  /** The definitions a `tool_search` query matches, best first. Never throws. */
  search(query: string, limit?: number): McpTool[] {
    const parsed = parseToolQuery(query);
    const max = searchLimit(parsed, limit);
    switch (parsed.kind) {
      case 'none':
        return [];
      case 'select':
        return parsed.names
          .map((name) => this.positions.get(name))
          .filter((position) => position !== undefined)
          .slice(0, max)
          .map((position) => this.tools[position]!);
      case 'require': {
        const matching = (position: number) =>
          this.tools[position]!.name.toLowerCase().includes(parsed.term);
        const ranked = this.index.search(parsed.rest, max, matching).map((hit) => hit.doc);
        // Names that hold the term but none of the ranking words still match; they come after,
        // in name order.
        const seen = new Set(ranked);
        for (let position = 0; position < this.tools.length && ranked.length < max; position++) {
          if (!seen.has(position) && matching(position)) ranked.push(position);
        }
        return ranked.map((position) => this.tools[position]!);
      }
      case 'text':
        return this.index.search(parsed.text, max).map((hit) => this.tools[hit.doc]!);
    }
  }
}

/**
 * The catalogue for a scope's tools: all but the always-loaded ones, the built-in's namesake, and
 * tools only MCP Apps may call (hosts never show those to the model, so there is nothing to defer).
 */
export function buildToolCatalogue(
  tools: readonly DirectoryTool[],
  alwaysLoaded: readonly string[],
): ToolCatalogue {
  const kept = new Set(alwaysLoaded);
  return new ToolCatalogue(
    tools.filter(
      (tool) =>
        tool.visibility.includes('model') && !kept.has(tool.name) && tool.name !== TOOL_SEARCH_NAME,
    ),
  );
}

/** What BM25 ranks a tool by: its name, title and description, its arguments' names and descriptions. */
function searchableFields(tool: McpTool): WeightedText[] {
  const fields: WeightedText[] = [{ text: tool.name, weight: NAME_WEIGHT }];
  const texts = [tool.title, tool.annotations?.title, tool.description];
  for (const text of texts)
    if (typeof text === 'string') fields.push({ text, weight: TEXT_WEIGHT });
  const properties = (tool.inputSchema as { properties?: unknown } | null)?.properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
      fields.push({ text: name, weight: ARGUMENT_NAME_WEIGHT });
      const description = (schema as { description?: unknown } | null)?.description;
      if (typeof description === 'string') fields.push({ text: description, weight: TEXT_WEIGHT });
    }
  }
  return fields;
}

/**
 * sha256 over the definitions in name order. Plain JSON suffices: a definition's key order is
 * fixed by the presenter and by PostgreSQL, which stores jsonb keys in a normalised order, so
 * equal content always serialises alike (the directory fingerprint relies on the same).
 */
function contentHash(sorted: readonly McpTool[]): string {
  const hash = createHash('sha256');
  for (const definition of sorted) hash.update(JSON.stringify(definition)).update('\n');
  return hash.digest('hex');
}

function shares(tools: readonly DirectoryTool[]): GatewayShare[] {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.gatewaySlug, (counts.get(tool.gatewaySlug) ?? 0) + 1);
  return [...counts]
    .map(([gateway, count]) => ({ gateway, tools: count }))
    .sort((a, b) => b.tools - a.tools || compare(a.gateway, b.gateway));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
