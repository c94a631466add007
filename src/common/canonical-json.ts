import { JsonLimitError, WALK_DEPTH_CAP } from './json-value';

/** Text already serialised, waiting its turn on the stack. */
class Text {
  constructor(readonly text: string) {}
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * Object keys in the order canonical JSON has always written them (the order content hashes
 * stored in the database were computed in): sorted, except that JSON.stringify writes an
 * object's array-index keys first, ascending.
 */
function canonicalKeys(value: object): string[] {
  const keys = Object.keys(value).sort(byCodeUnits);
  const indices = keys.filter((key) => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1);
  if (indices.length === 0) return keys;
  const isIndex = new Set(indices);
  return [...indices.sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndex.has(k))];
}

/** What JSON.stringify serialises in place of `value`: the result of its `toJSON`, if any. */
function jsonValue(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function'
    ? (toJSON as (key: string) => unknown).call(value, key)
    : value;
}

/** Whether JSON.stringify leaves an object member out (and writes null for an array item). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * JSON with object keys sorted at every depth, so that equal values always serialise alike:
 * for content hashes, argument digests, and comparing what PostgreSQL's `jsonb` gave back (which
 * orders keys its own way) with what was asked for.
 *
 * Written out without recursion (JSON.stringify recurses, and a value nested some thousands deep
 * overflows the stack); the text is exactly what JSON.stringify with sorting gives.
 */
export function canonicalJson(value: unknown): string {
  const root = jsonValue(value, '');
  if (omitted(root)) return 'null';
  const out: string[] = [];
  const stack: unknown[] = [root];
  const depths: number[] = [0];
  while (stack.length > 0) {
    const current = stack.pop();
    const depth = depths.pop()!;
    if (current instanceof Text) {
      out.push(current.text);
      continue;
    }
    if (typeof current !== 'object' || current === null) {
      out.push(JSON.stringify(current));
      continue;
    }
    if (depth >= WALK_DEPTH_CAP)
      throw new JsonLimitError(
        `the value is nested more than ${WALK_DEPTH_CAP} levels deep, or refers to itself`,
      );
    // Pushed in reverse: the stack gives back the last first.
    const parts: unknown[] = [];
    if (Array.isArray(current)) {
      parts.push(new Text('['));
      (current as unknown[]).forEach((item, index) => {
        if (index > 0) parts.push(new Text(','));
        const inner = jsonValue(item, String(index));
        parts.push(omitted(inner) ? new Text('null') : inner);
      });
      parts.push(new Text(']'));
    } else {
      parts.push(new Text('{'));
      let first = true;
      for (const key of canonicalKeys(current)) {
        const inner = jsonValue((current as Record<string, unknown>)[key], key);
        if (omitted(inner)) continue;
        parts.push(new Text(`${first ? '' : ','}${JSON.stringify(key)}:`), inner);
        first = false;
      }
      parts.push(new Text('}'));
    }
    for (let i = parts.length - 1; i >= 0; i--) {
      stack.push(parts[i]);
      depths.push(depth + 1);
    }
  }
  return out.join('');
}
