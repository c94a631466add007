/** What a `tool_search` query asks for. Parsing never throws: anything unusable is `none`. */
export type ToolQuery =
  /** Nothing to search for: empty, whitespace, a bare `+`, or an invalid pattern. */
  | { kind: 'none' }
  /** `select:a,b`: these exact names, in this order. */
  | { kind: 'select'; names: string[] }
  /** `+term rest`: names that contain `term` (case-insensitively), ranked by `rest`. */
  | { kind: 'require'; term: string; rest: string }
  /** Anything else: keywords ranked by BM25. */
  | { kind: 'text'; text: string };

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 50;

const SELECT = /^select:/i;
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** A `+` term is a piece of a tool name, so it uses the name alphabet. */
const TERM = /^[A-Za-z0-9_.-]{1,128}$/;

export function parseToolQuery(query: string): ToolQuery {
  const trimmed = query.trim();
  if (trimmed === '') return { kind: 'none' };
  if (SELECT.test(trimmed)) {
    const names = [
      ...new Set(
        trimmed
          .replace(SELECT, '')
          .split(',')
          .map((name) => name.trim())
          .filter((name) => NAME.test(name)),
      ),
    ];
    return names.length === 0 ? { kind: 'none' } : { kind: 'select', names };
  }
  if (trimmed.startsWith('+')) {
    const [term = '', ...rest] = trimmed.slice(1).trim().split(/\s+/);
    if (!TERM.test(term)) return { kind: 'none' };
    return { kind: 'require', term: term.toLowerCase(), rest: rest.join(' ') };
  }
  return { kind: 'text', text: trimmed };
}

/**
 * How many matches to return: `limit` when given (clamped to 1..MAX_SEARCH_LIMIT), else every
 * selected name or DEFAULT_SEARCH_LIMIT.
 */
export function searchLimit(query: ToolQuery, limit: number | undefined): number {
  if (limit !== undefined) return Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
  return query.kind === 'select'
    ? Math.min(MAX_SEARCH_LIMIT, query.names.length)
    : DEFAULT_SEARCH_LIMIT;
}
