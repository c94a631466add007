import { type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_SEARCH_NAME, type ToolCatalogue } from './tool-catalogue';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './tool-query';

/** Gateways named one by one in the description; the rest are summed up. */
const GATEWAYS_NAMED = 20;

/** The `tools/list` entry of `tool_search` for a catalogue: what is deferred, and how to ask. */
export function toolSearchDefinition(catalogue: ToolCatalogue): McpTool {
  return {
    name: TOOL_SEARCH_NAME,
    title: 'Tool search',
    description: [
      'Finds and loads tools that this server keeps out of the tool list to save context.',
      deferredSummary(catalogue),
      'Query forms: "select:name_a,name_b" loads those exact tools; "+term words" keeps tools ' +
        'whose name contains term and ranks them by the words; any other text is a keyword ' +
        'search over tool names, descriptions and argument names and descriptions.',
      'The result holds the full definitions of the matching tools. They are then added to the ' +
        'tool list and can be called directly; a deferred tool cannot be called before that.',
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'select:<names,comma-separated> | +<name term> [words] | keywords',
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
        tools: {
          type: 'array',
          description: 'Full definitions of the matching tools, now loaded.',
          items: { type: 'object' },
        },
      },
      required: ['tools'],
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
 * `tool_search` arguments as the model sent them. Model input never makes the search raise: a
 * query that is missing or not a string searches for nothing, and an unusable limit is ignored.
 */
export function toolSearchArguments(args: Record<string, unknown> | undefined): {
  query: string;
  limit?: number;
} {
  const query = typeof args?.query === 'string' ? args.query : '';
  const limit = args?.limit;
  return typeof limit === 'number' && Number.isFinite(limit) ? { query, limit } : { query };
}

/** The result of a search: the full definitions, as JSON text and as structured content. */
export function toolSearchResult(query: string, tools: readonly McpTool[]): CallToolResult {
  const structuredContent = { tools: [...tools] };
  const text =
    tools.length > 0
      ? JSON.stringify(structuredContent)
      : `No deferred tool matches ${JSON.stringify(query)}. Try other keywords, "+term" with part ` +
        'of a tool name, or "select:" with exact names.';
  return { content: [{ type: 'text', text }], structuredContent };
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
