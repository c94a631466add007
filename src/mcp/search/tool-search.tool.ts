import { type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/server';
import { oneLine } from './ranking/tool-text';
import { type ToolCatalogue } from './tool-catalogue';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './tool-query';

/** Gateways named one by one in the description; the rest are summed up. */
const GATEWAYS_NAMED = 20;
/** A string property of the output schema, a new object each time (nothing shares it). */
const text = () => ({ type: 'string' });

/** The `tools/list` entry of `tool_search` for a catalogue: what is deferred, and how to ask. */
export function toolSearchDefinition(catalogue: ToolCatalogue): McpTool {
  return {
    name: TOOL_SEARCH_NAME,
    title: 'Tool search',
    description: [
      'Finds and loads tools that this server keeps out of the tool list to save context.',
      deferredSummary(catalogue),
      'Describe what you want to do in plain words ("are the CI checks green on PR 42"); the ' +
        'search matches meaning as well as words, over tool names, descriptions and arguments. ' +
        'Other forms: "select:name_a,name_b" loads those exact tools; "+term words" keeps tools ' +
        'whose name contains term and ranks them by the words. "gateway" narrows the search to ' +
        'one of the gateways above.',
      'Each hit shows its name, title, a one-line description and its required arguments; the ' +
        'result also holds the full definitions. The hits are then added to the tool list and ' +
        'can be called directly; a deferred tool cannot be called before that.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description:
            'What you want to do, in plain words | select:<names,comma-separated> | +<name term> [words]',
        },
        gateway: {
          type: 'string',
          description:
            'Only tools of this gateway (upstream MCP server), by its name as listed above.',
        },
        server: {
          type: 'string',
          description: 'The same as gateway, for clients that call upstreams servers.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_SEARCH_LIMIT,
          description: `Most tools to return; default ${DEFAULT_SEARCH_LIMIT}, or every name for select:.`,
        },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        hits: {
          type: 'array',
          description: 'The matching tools, best first, in brief.',
          items: {
            type: 'object',
            properties: {
              name: text(),
              title: text(),
              description: text(),
              required: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: text(), type: text(), description: text() },
                  required: ['name'],
                },
              },
            },
            required: ['name', 'description', 'required'],
          },
        },
        tools: {
          type: 'array',
          description: 'Full definitions of the matching tools, now loaded.',
          items: { type: 'object' },
        },
      },
      required: ['hits', 'tools'],
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
}

function deferredSummary(catalogue: ToolCatalogue): string {
  if (catalogue.size === 0) return 'No tools are deferred right now.';
  const named = catalogue.gateways.slice(0, GATEWAYS_NAMED);
  const others = catalogue.gateways.slice(GATEWAYS_NAMED);
  const parts = named.map((share) => `${share.gateway} (${share.tools})`);
  if (others.length > 0) {
    const tools = others.reduce((sum, share) => sum + share.tools, 0);
    parts.push(`${others.length} more gateways (${tools})`);
  }
  const noun = catalogue.size === 1 ? 'tool is' : 'tools are';
  return `${catalogue.size} ${noun} deferred, by gateway: ${parts.join(', ')}.`;
}

/**
 * How much of a query is read: far more than any model asks (a `select:` of a hundred names
 * included), and a bound on what one call makes the ranker tokenise.
 */
export const QUERY_LENGTH = 16_384;

/**
 * `tool_search` arguments as the model sent them. Model input never makes the search raise: a
 * query that is missing or not a string searches for nothing, one past QUERY_LENGTH is read up to
 * it, and an unusable limit or gateway is ignored. `server` is another name for `gateway`.
 */
export function toolSearchArguments(args: Record<string, unknown> | undefined): {
  query: string;
  limit?: number;
  gateway?: string;
} {
  const query = typeof args?.query === 'string' ? args.query.slice(0, QUERY_LENGTH) : '';
  const limit = args?.limit;
  const gateway = [args?.gateway, args?.server].find(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  );
  return {
    query,
    ...(typeof limit === 'number' && Number.isFinite(limit) ? { limit } : {}),
    ...(gateway !== undefined ? { gateway: gateway.trim() } : {}),
  };
}

/** A required argument as a hit shows it. */
export interface HitArgument {
  name: string;
  type?: string;
  description?: string;
}

/** What a hit tells the model: enough to choose, without the whole schema. */
export interface SearchHit {
  name: string;
  title?: string;
  description: string;
  required: HitArgument[];
}

export function searchHit(tool: McpTool): SearchHit {
  const title = tool.title ?? tool.annotations?.title;
  const schema = tool.inputSchema as { properties?: unknown; required?: unknown };
  const properties =
    typeof schema.properties === 'object' && schema.properties !== null
      ? (schema.properties as Record<string, unknown>)
      : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  return {
    name: tool.name,
    ...(typeof title === 'string' && title !== '' ? { title } : {}),
    description: oneLine(tool.description),
    required: required.map((name) => argument(name, properties[name])),
  };
}

function argument(name: string, schema: unknown): HitArgument {
  const { type, description } = (schema ?? {}) as { type?: unknown; description?: unknown };
  const types = (Array.isArray(type) ? type : [type]).filter(
    (t): t is string => typeof t === 'string',
  );
  const line = typeof description === 'string' ? oneLine(description, 100) : '';
  return {
    name,
    ...(types.length > 0 ? { type: types.join(' | ') } : {}),
    ...(line !== '' ? { description: line } : {}),
  };
}

function hitLine(hit: SearchHit, position: number): string {
  const head = hit.title ? `${hit.name} (${hit.title})` : hit.name;
  const needs = hit.required.map((arg) => (arg.type ? `${arg.name}: ${arg.type}` : arg.name));
  const requires = needs.length > 0 ? ` Requires ${needs.join(', ')}.` : ' No required arguments.';
  return `${position + 1}. ${head} - ${hit.description || 'No description.'}${requires}`;
}

/**
 * The result of a search: the hits in brief, for the model to choose from, and the full
 * definitions, as text and as structured content.
 */
export function toolSearchResult(
  catalogue: ToolCatalogue,
  asked: { query: string; gateway?: string },
  tools: readonly McpTool[],
): CallToolResult {
  const hits = tools.map(searchHit);
  const structuredContent = { hits, tools: [...tools] };
  if (tools.length === 0)
    return { content: [{ type: 'text', text: noMatch(catalogue, asked) }], structuredContent };
  const summary = [
    `${hits.length} tool${hits.length === 1 ? '' : 's'} found, best first; now loaded and callable by name:`,
    ...hits.map(hitLine),
  ].join('\n');
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(structuredContent) },
    ],
    structuredContent,
  };
}

function noMatch(
  catalogue: ToolCatalogue,
  { query, gateway }: { query: string; gateway?: string },
): string {
  if (gateway !== undefined) {
    const known = catalogue.gateways.some(
      (share) => share.gateway.toLowerCase() === gateway.toLowerCase(),
    );
    if (!known) {
      const names = catalogue.gateways.slice(0, GATEWAYS_NAMED).map((share) => share.gateway);
      return `No deferred tool belongs to gateway ${JSON.stringify(gateway)}. Gateways with deferred tools: ${names.join(', ') || 'none'}.`;
    }
  }
  return (
    `No deferred tool matches ${JSON.stringify(query)}${gateway !== undefined ? ` in gateway ${JSON.stringify(gateway)}` : ''}. ` +
    'Try other words, "+term" with part of a tool name, or "select:" with exact names.'
  );
}

/** What a call to a deferred tool the session has not promoted gets. */
export function deferredToolRefusal(name: string): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `Tool '${name}' is deferred and has not been promoted yet. Call tool_search (for example \`select:${name}\`) first, then retry.`,
      },
    ],
  };
}
