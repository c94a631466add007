/** The tools one session has promoted, and the catalogue version they were promoted from. */
export interface Promotions {
  catalogHash: string;
  names: string[];
}

/**
 * The promotions after a search promoted `names` under `catalogHash`: merged with the current ones
 * under the same hash, replacing them under another (they were promoted from an older catalogue).
 * Names come out sorted and unique, so equal sets compare equal.
 */
export function mergePromotions(
  current: Promotions | null,
  catalogHash: string,
  names: readonly string[],
): Promotions {
  const kept = current?.catalogHash === catalogHash ? current.names : [];
  return { catalogHash, names: [...new Set([...kept, ...names])].sort() };
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
