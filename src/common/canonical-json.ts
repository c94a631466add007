/**
 * JSON with object keys sorted at every depth, so that equal values always serialise alike:
 * for content hashes, argument digests, and comparing what PostgreSQL's `jsonb` gave back (which
 * orders keys its own way) with what was asked for.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(
            Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0,
            ),
          )
        : inner,
    ) ?? 'null'
  );
}
