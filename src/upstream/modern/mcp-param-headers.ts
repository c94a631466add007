import { type IncomingHttpHeaders } from 'node:http';

/**
 * SEP-2243: a 2026-07-28 request states its method and name in `Mcp-Method` and `Mcp-Name`; a
 * tool marks input properties with `x-mcp-header: "X"`, and a client mirrors those arguments into
 * `Mcp-Param-X` headers. The SDK keeps its version of this internal, so Portico has its own,
 * written to the same rules (RFC 9110 tokens, primitive types, properties reached only through
 * `properties`, case-insensitively unique, base64 sentinel for values that are not plain header
 * text).
 */

const X_MCP_HEADER = 'x-mcp-header';
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Where an annotation makes the whole definition invalid. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const MAP_VALUED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** A walk of an untrusted schema stops here; nothing legitimate nests this deep. */
const MAX_DEPTH = 64;

export interface HeaderParam {
  path: string[];
  header: string;
}

/** A tool's declarations, or why its annotations are invalid. */
export type HeaderParams =
  { valid: true; params: HeaderParam[] } | { valid: false; reason: string };

/** The `Mcp-Param-*` declarations of a tool's input schema. */
export function headerParamsOf(inputSchema: unknown): HeaderParams {
  const params: HeaderParam[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | null => {
    if (node === null || typeof node !== 'object') return null;
    if (path.length > MAX_DEPTH) return 'the schema nests too deep to check';
    const schema = node as Record<string, unknown>;
    if (X_MCP_HEADER in schema) {
      const header = schema[X_MCP_HEADER];
      if (!reachable || path.length === 0)
        return `${path.join('.') || '<root>'}: x-mcp-header only on properties reached through 'properties'`;
      if (typeof header !== 'string' || !TOKEN.test(header))
        return `${path.join('.')}: x-mcp-header is not an HTTP token`;
      if (typeof schema.type !== 'string' || !HEADER_TYPES.has(schema.type))
        return `${path.join('.')}: x-mcp-header only on string, integer or boolean properties`;
      const prior = seen.get(header.toLowerCase());
      if (prior !== undefined) return `x-mcp-header '${header}' is declared twice`;
      seen.set(header.toLowerCase(), header);
      params.push({ path, header });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object')
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? (sub as unknown[])
        : MAP_VALUED.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return null;
  };
  const fault = visit(inputSchema, [], true);
  return fault === null ? { valid: true, params } : { valid: false, reason: fault };
}

/** The `Mcp-Param-*` headers of one call; an absent, null or non-primitive value sends none. */
export function headerParamValues(
  params: readonly HeaderParam[],
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of params) {
    const text = primitiveText(valueAt(args, path));
    if (text !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return headers;
}

/** The request field that `Mcp-Name` mirrors, per method (the Tasks extension's by task id). */
const NAME_FIELD: ReadonlyMap<string, 'name' | 'uri' | 'taskId'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/** A 2026-07-28 request's standard headers (`Mcp-Method`, `Mcp-Name`), and a call's `Mcp-Param-*`. */
export function requestHeaders(
  method: string,
  params: Record<string, unknown>,
  tools: ToolHeaderParams,
): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-method': method };
  const field = NAME_FIELD.get(method);
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  if (method === 'tools/call' && typeof name === 'string')
    Object.assign(
      headers,
      headerParamValues(tools.of(name), params.arguments as Record<string, unknown> | undefined),
    );
  return headers;
}

/** A value as header text: plain when it is printable ASCII without edge spaces, else base64. */
export function encodeHeaderValue(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    !(value.startsWith('=?base64?') && value.endsWith('?=')) &&
    /^[\t\x20-\x7e]*$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    Number.isSafeInteger(Math.trunc(value))
  )
    return String(value);
  return undefined;
}

/**
 * The `Mcp-Param-*` declarations of one upstream's tools, learnt from each `tools/list` that
 * passes through its connections (sync lists them all). A tool whose annotation is invalid is one
 * a client must not use (SEP-2243): `fault` says why, and Portico does not call it.
 */
export class ToolHeaderParams {
  private readonly tools = new Map<string, HeaderParams>();
  /** Whether a whole list has been read since Portico started (or the upstream moved). */
  loaded = false;

  learn(tools: unknown[], complete: boolean): void {
    if (complete) this.loaded = true;
    for (const tool of tools) {
      const { name, inputSchema } = (tool ?? {}) as { name?: unknown; inputSchema?: unknown };
      if (typeof name !== 'string') continue;
      const scan = headerParamsOf(inputSchema);
      if (scan.valid && scan.params.length === 0) this.tools.delete(name);
      else this.tools.set(name, scan);
    }
  }

  of(tool: string): readonly HeaderParam[] {
    const scan = this.tools.get(tool);
    return scan?.valid ? scan.params : [];
  }

  /** Why the tool's annotations are invalid; null when they are fine, or not known. */
  fault(tool: string): string | null {
    const scan = this.tools.get(tool);
    return scan && !scan.valid ? scan.reason : null;
  }
}

/** The value at `path` inside `args` (a header parameter's argument), or undefined. */
export function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path)
    value =
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>)[key]
        : undefined;
  return value;
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A header value as sent: plain, or `=?base64?…?=`; undefined when the sentinel is not canonical. */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (!match) return value;
  const payload = match[1] ?? '';
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

/** Where a request's headers and body disagree, in the words of -32020. */
export interface HeaderMismatch {
  header: string;
  message: string;
}

/** A header's first value, trimmed (Node has trimmed a single value already). */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : value?.[0]?.trim();
}

/**
 * A received request's standard headers against its body: `MCP-Protocol-Version` and
 * `Mcp-Method` present, and `Mcp-Name`, decoded, equal to what the body names. The first
 * disagreement, or null.
 */
export function standardHeaderMismatch(
  method: string,
  params: Record<string, unknown> | undefined,
  headers: IncomingHttpHeaders,
): HeaderMismatch | null {
  const missing = (what: string) => ({ header: '(missing)', message: what });
  if (headerOf(headers, 'mcp-protocol-version') === undefined)
    return missing('the required MCP-Protocol-Version header is absent');
  if (headerOf(headers, 'mcp-method') === undefined)
    return missing('the required Mcp-Method header is absent');
  const field = NAME_FIELD.get(method);
  const body = field === undefined ? undefined : params?.[field];
  if (typeof body !== 'string') return null;
  const header = headerOf(headers, 'mcp-name');
  if (header === undefined) return missing(`params.${field} is "${body}" but Mcp-Name is absent`);
  const decoded = decodeHeaderValue(header);
  if (decoded === undefined)
    return { header, message: 'Mcp-Name carries an invalid Base64 sentinel' };
  if (decoded !== body)
    return { header, message: `params.${field} is "${body}" but Mcp-Name names "${decoded}"` };
  return null;
}

/**
 * A `tools/call`'s `Mcp-Param-*` headers (as `sent` reads them) against the tool's declarations:
 * every argument so declared that the body carries (as a primitive) must be mirrored, equal once
 * decoded; numbers compare as numbers. The first that is not, or null.
 */
export function paramHeaderMismatch(
  args: unknown,
  declared: readonly HeaderParam[],
  sent: (header: string) => string | undefined,
): HeaderMismatch | null {
  for (const { path, header } of declared) {
    const value = valueAt(args, path);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      continue;
    const name = `Mcp-Param-${header}`;
    const given = sent(name.toLowerCase());
    if (given === undefined)
      return { header: name, message: `${path.join('.')} is set but ${name} is absent` };
    const decoded = decodeHeaderValue(given);
    if (decoded === undefined)
      return { header: name, message: `${name} carries an invalid Base64 sentinel` };
    const equal =
      typeof value === 'number' && DECIMAL.test(decoded)
        ? Number(decoded) === value
        : decoded === String(value);
    if (!equal)
      return {
        header: name,
        message: `${name} decodes to ${JSON.stringify(decoded)} but ${path.join('.')} is ${JSON.stringify(value)}`,
      };
  }
  return null;
}
