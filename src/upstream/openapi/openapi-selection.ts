/** The HTTP methods an OpenAPI path item may hold operations for, in the order they are read. */
export const HTTP_METHODS = [
  'GET',
  'HEAD',
  'OPTIONS',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'TRACE',
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Methods that change nothing: the default, so that a new gateway can read and never write. */
export const READ_ONLY_METHODS: readonly HttpMethod[] = ['GET', 'HEAD'];

/**
 * Which operations of a description become tools, as an operator picks them. Every list is
 * optional: an operation becomes a tool when its method is among `methods` (GET and HEAD by
 * default), it has one of `includeTags` (when given) and none of `excludeTags`, its path matches
 * one of `includePaths` (when given) and none of `excludePaths`. Path globs: `*` matches within
 * one segment, `**` across segments.
 */
export interface OpenApiSelection {
  methods?: HttpMethod[];
  includeTags?: string[];
  excludeTags?: string[];
  includePaths?: string[];
  excludePaths?: string[];
}

export const SELECTION_LIST_MAX = 100;
export const SELECTION_ENTRY_MAX = 512;

/** A path glob as a regular expression anchored at both ends. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '*' && glob[index + 1] === '*') {
      source += '.*';
      index++;
    } else if (char === '*') source += '[^/]*';
    else source += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether the selection takes an operation; compiled once per document read. */
export function selector(
  selection: OpenApiSelection,
): (method: HttpMethod, path: string, tags: readonly string[]) => boolean {
  const methods = new Set(selection.methods ?? READ_ONLY_METHODS);
  const includeTags = selection.includeTags?.length ? new Set(selection.includeTags) : null;
  const excludeTags = new Set(selection.excludeTags ?? []);
  const includePaths = selection.includePaths?.length
    ? selection.includePaths.map(globToRegExp)
    : null;
  const excludePaths = (selection.excludePaths ?? []).map(globToRegExp);
  return (method, path, tags) =>
    methods.has(method) &&
    (includeTags === null || tags.some((tag) => includeTags.has(tag))) &&
    !tags.some((tag) => excludeTags.has(tag)) &&
    (includePaths === null || includePaths.some((glob) => glob.test(path))) &&
    !excludePaths.some((glob) => glob.test(path));
}
