import { type CacheScope } from '@modelcontextprotocol/server';

/** How long a modern client may reuse an answer, and with whom (2026-07-28 caching). */
export interface CacheHint {
  ttlMs: number;
  cacheScope: CacheScope;
}

/**
 * The cacheable methods and how long their answers stay true. Every answer is `private`: what a
 * scope lists depends on who asks (tool rules, membership, the token's reach). Lists change only
 * when an operator or a sync changes the catalogue; until modern listens relay those changes, a
 * client learns of them by asking again, so the lists are fresh for seconds, not minutes. What an
 * upstream reads is its own to hint: without its hint nothing is cached (the spec's default).
 */
const TTL_MS: Readonly<Record<string, number>> = {
  'server/discover': 60_000,
  'tools/list': 10_000,
  'prompts/list': 10_000,
  'resources/list': 10_000,
  'resources/templates/list': 10_000,
  'resources/read': 0,
};

/** Whether a method's answer carries a cache hint. */
export function isCacheable(method: string): boolean {
  return method in TTL_MS;
}

export function cacheHint(method: string): CacheHint {
  return { ttlMs: TTL_MS[method] ?? 0, cacheScope: 'private' };
}

/** A read's hint: the upstream's, when it gave one, never longer-lived or more shared than ours. */
export function readHint(upstream: { ttlMs?: unknown }): CacheHint {
  const ttl = upstream.ttlMs;
  return {
    ttlMs: typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0 ? ttl : 0,
    cacheScope: 'private',
  };
}
