import { type CacheScope } from '@modelcontextprotocol/server';

/**
 * The methods whose 2026-07-28 answers carry a cache hint, and how long they stay true. Every
 * answer is `private`: what a scope lists depends on who asks (tool rules, membership, the
 * token's reach). Lists change only when an operator or a sync changes the catalogue, and open
 * listens hear of it, so they are fresh for seconds, not minutes. What an upstream reads is its
 * own to hint: without its hint nothing is cached (the spec's default).
 */
export const CACHE_TTL_MS: ReadonlyMap<string, number> = new Map([
  ['server/discover', 60_000],
  ['tools/list', 10_000],
  ['prompts/list', 10_000],
  ['resources/list', 10_000],
  ['resources/templates/list', 10_000],
  ['resources/read', 0],
]);

/**
 * How long a client may reuse the answer to a cacheable method, and with whom: a read's hint is
 * the upstream's, when it gave one, never longer-lived or more shared than ours.
 */
export function cacheHint(
  method: string,
  result: { ttlMs?: unknown },
): { ttlMs: number; cacheScope: CacheScope } {
  if (method !== 'resources/read')
    return { ttlMs: CACHE_TTL_MS.get(method) ?? 0, cacheScope: 'private' };
  const ttl = result.ttlMs;
  return {
    ttlMs: typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0 ? ttl : 0,
    cacheScope: 'private',
  };
}
