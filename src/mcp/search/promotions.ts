/**
 * Tool-search promotions, the deer-flow rule: the deferred tools form an immutable catalogue with
 * a content hash, and the conversation's owner (a 2025 session; on the modern wire, the principal
 * in its scope) holds the names it promoted together with that hash. Pure: both eras share it.
 */
export interface Promotions {
  catalogHash: string;
  names: string[];
}

/** The most names one owner keeps promoted; a search promotes a handful at a time. */
export const MAX_PROMOTED_NAMES = 500;

/**
 * The promotions after a search promoted `names` under `catalogHash`: merged with the current ones
 * under the same hash, replacing them under another (they were promoted from an older catalogue).
 * Names come out sorted and unique, so equal sets compare equal. Past `limit`, the names just
 * promoted are kept first.
 */
export function mergePromotions(
  current: Promotions | null,
  catalogHash: string,
  names: readonly string[],
  limit = MAX_PROMOTED_NAMES,
): Promotions {
  const kept = current?.catalogHash === catalogHash ? current.names : [];
  const merged = [...new Set([...names, ...kept])].slice(0, limit);
  return { catalogHash, names: merged.sort() };
}

/** The names that apply under the catalogue `catalogHash`; none when they belong to another. */
export function promotedNames(
  current: Promotions | null,
  catalogHash: string,
): ReadonlySet<string> {
  return new Set(current?.catalogHash === catalogHash ? current.names : []);
}

export function samePromotions(a: Promotions | null, b: Promotions | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.catalogHash === b.catalogHash &&
    a.names.length === b.names.length &&
    a.names.every((name, i) => name === b.names[i])
  );
}
