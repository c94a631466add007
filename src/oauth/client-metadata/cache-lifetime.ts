/** How long a document that says nothing about caching is kept (then at most the configured maximum). */
export const DEFAULT_LIFETIME_SECONDS = 3600;

/** The response headers that say how long a document may be kept (RFC 9111), as Node names them. */
export interface CacheHeaders {
  'cache-control'?: string;
  expires?: string;
  date?: string;
  age?: string;
}

/**
 * How many seconds a fetched document stays fresh (RFC 9111 §4.2.1): 0 with `no-store` or
 * `no-cache` (fetched again at every use), else `max-age`, else `Expires` against `Date`, less
 * `Age`; without any of them DEFAULT_LIFETIME_SECONDS. Never more than `maxSeconds`.
 */
export function cacheLifetimeSeconds(
  headers: CacheHeaders,
  maxSeconds: number,
  now = Date.now(),
): number {
  const directives = new Map<string, string | null>();
  for (const part of (headers['cache-control'] ?? '').split(',')) {
    const [name = '', ...value] = part.split('=');
    const key = name.trim().toLowerCase();
    if (key !== '') directives.set(key, value.length > 0 ? value.join('=').trim() : null);
  }
  let lifetime: number;
  if (directives.has('no-store') || directives.has('no-cache')) {
    lifetime = 0;
  } else if (directives.has('max-age')) {
    const maxAge = /^"?(\d{1,10})"?$/.exec(directives.get('max-age') ?? '')?.[1];
    // An invalid max-age makes the response stale (RFC 9111 §4.2.1).
    lifetime = maxAge === undefined ? 0 : Number(maxAge);
  } else if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date === undefined ? now : Date.parse(headers.date);
    lifetime = Number.isNaN(expires) || Number.isNaN(date) ? 0 : (expires - date) / 1000;
  } else {
    lifetime = DEFAULT_LIFETIME_SECONDS;
  }
  const age = /^\d{1,10}$/.test(headers.age ?? '') ? Number(headers.age) : 0;
  return Math.max(0, Math.min(maxSeconds, Math.floor(lifetime - age)));
}
