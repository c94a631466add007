import { isJsonObject } from '../common/json-value';

/** How deep two schemas are compared; stored schemas are bounded far below this already. */
const DEPTH_LIMIT = 64;

/**
 * Where two input schemas first differ, as a JSON path (`properties.region.type`), with what
 * each side holds there; null when they are the same. Object keys compare as sets, arrays in
 * order (a `required` list in another order is the same list: it is compared as a set).
 */
export function schemaDifference(shared: unknown, other: unknown): string | null {
  return differenceAt(shared, other, '', 0);
}

function differenceAt(a: unknown, b: unknown, path: string, depth: number): string | null {
  if (depth > DEPTH_LIMIT) return `${path || 'the schema'} is nested too deeply to compare`;
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const here = path === '' ? key : `${path}.${key}`;
      if (!(key in a)) return `${here} is only in the other schema`;
      if (!(key in b)) return `${here} is missing from the other schema`;
      const found =
        key === 'required' && Array.isArray(a[key]) && Array.isArray(b[key])
          ? sameSet(a[key], b[key], here)
          : differenceAt(a[key], b[key], here, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length)
      return `${path} has ${a.length} entries here and ${b.length} in the other schema`;
    for (let index = 0; index < a.length; index++) {
      const found = differenceAt(a[index], b[index], `${path}[${index}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (a === b) return null;
  return `${path || 'the schema'} is ${shown(a)} here and ${shown(b)} in the other schema`;
}

function sameSet(a: unknown[], b: unknown[], path: string): string | null {
  const left = new Set(a.map((entry) => JSON.stringify(entry)));
  const right = new Set(b.map((entry) => JSON.stringify(entry)));
  for (const entry of left) if (!right.has(entry)) return `${path} lists ${entry} only here`;
  for (const entry of right)
    if (!left.has(entry)) return `${path} lists ${entry} only in the other schema`;
  return null;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
