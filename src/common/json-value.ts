/**
 * JSON values that came from clients or upstreams: what an object is, and walks of them. None of
 * the walks recurses: parsing is iterative in V8, so a body can nest far deeper than the call
 * stack, and a recursive walk of it would end the process with a RangeError that no request
 * handler sees coming.
 */

/** A JSON object as stored in jsonb columns and read from upstreams: schemas, annotations, `_meta`. */
export type JsonObject = Record<string, unknown>;

/** A JSON object: neither null nor an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON-RPC id as MCP takes it: a string or an integer, one that JSON numbers carry exactly (a
 * larger one would be answered with an id the client never sent).
 */
export function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * Deeper than any walk here goes. Parsed input is bounded far below this (JSON_MAX_DEPTH); the
 * cap is what stops a walk of a value that refers to itself, which JSON never does but code may.
 */
export const WALK_DEPTH_CAP = 100_000;

/** A JSON value was nested deeper than a limit allows: a refusal of that input, not a bug. */
export class JsonLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonLimitError';
  }
}

function tooDeep(): JsonLimitError {
  return new JsonLimitError(
    `the value is nested more than ${WALK_DEPTH_CAP} levels deep, or refers to itself`,
  );
}

/**
 * Whether JSON text nests more than `limit` arrays and objects deep, read from the text itself
 * (brackets outside strings), so that a document can be refused before JSON.parse spends seconds
 * building millions of nested values. Text that is not JSON may answer either way: parse it after.
 */
export function textNestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/** How deep a JSON value nests (a scalar is 0, `{}` is 1), stopping once past `limit`. */
export function nestingDepth(value: unknown, limit = WALK_DEPTH_CAP): number {
  let deepest = 0;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    if (Array.isArray(current)) {
      for (const child of current as unknown[]) {
        if (typeof child !== 'object' || child === null) continue;
        values.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue;
      const child = (current as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return deepest;
}

/** Whether any string in the JSON value, object keys included, matches. */
export function someString(value: unknown, matches: (text: string) => boolean): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current === 'string') {
      if (matches(current)) return true;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= WALK_DEPTH_CAP) throw tooDeep();
    const members: unknown[] = Array.isArray(current) ? current : Object.entries(current).flat();
    for (const member of members) {
      values.push(member);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * A copy of a JSON value in which `rewrite` may replace any member: it sees each value (with its
 * object key, none for array items and the root) before the copy descends into it, and what it
 * returns instead of the value it was given is taken as it is. Arrays and plain objects are
 * copied; anything else is kept.
 */
export function rewriteJson(
  value: unknown,
  rewrite: (value: unknown, key: string | undefined) => unknown,
): unknown {
  const root = rewrite(value, undefined);
  if (root !== value) return root;
  const top = shell(value);
  if (top === null) return value;
  const sources: object[] = [value as object];
  const copies: object[] = [top];
  const depths: number[] = [1];
  while (sources.length > 0) {
    const source = sources.pop()!;
    const copy = copies.pop()!;
    const depth = depths.pop()!;
    if (depth > WALK_DEPTH_CAP) throw tooDeep();
    const entries: [string | number, unknown][] = Array.isArray(source)
      ? (source as unknown[]).map((item, index) => [index, item])
      : Object.entries(source);
    for (const [key, member] of entries) {
      const rewritten = rewrite(member, typeof key === 'string' ? key : undefined);
      const inner = rewritten === member ? shell(member) : null;
      setMember(copy, key, inner ?? rewritten);
      if (inner === null) continue;
      sources.push(member as object);
      copies.push(inner);
      depths.push(depth + 1);
    }
  }
  return top;
}

/** An empty array or object to copy `value` into; null for what is not copied. */
function shell(value: unknown): object | null {
  if (Array.isArray(value)) return [];
  if (typeof value !== 'object' || value === null) return null;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null ? {} : null;
}

function setMember(target: object, key: string | number, member: unknown): void {
  // A `__proto__` key from JSON.parse is an own member; assignment would set the prototype.
  if (key === '__proto__')
    Object.defineProperty(target, key, {
      value: member,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else (target as Record<string | number, unknown>)[key] = member;
}

/**
 * Whether a parsed value holds more than `limit` values (objects, arrays and scalars alike),
 * counted without recursion and given up as soon as it is past: what a validator would walk, and
 * report on one by one, before anything is built from it.
 */
export function exceedsValues(value: unknown, limit: number): boolean {
  let counted = 0;
  const values: unknown[] = [value];
  while (values.length > 0) {
    const current = values.pop();
    if (++counted > limit) return true;
    if (typeof current !== 'object' || current === null) continue;
    const children = Array.isArray(current) ? current : Object.values(current);
    if (counted + children.length > limit) return true;
    for (const child of children as unknown[]) values.push(child);
  }
  return false;
}
