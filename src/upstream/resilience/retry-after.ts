/** The longest wait an upstream's Retry-After is taken at; a longer one is cut to this. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * When an upstream that answered `status` with this Retry-After header (RFC 9110 §10.2.3: seconds,
 * or an HTTP date) says to try again: only a 429 or 503 says so, a wait past a day is cut to a
 * day, and a header that is neither form, or a time already past, says nothing.
 */
export function upstreamRetryAt(status: number, header: unknown, now = Date.now()): Date | null {
  if ((status !== 429 && status !== 503) || typeof header !== 'string') return null;
  const value = header.trim();
  const at = /^\d+$/.test(value) ? now + Number(value) * 1000 : Date.parse(value);
  if (!Number.isFinite(at) || at <= now) return null;
  return new Date(Math.min(at, now + MAX_RETRY_AFTER_SECONDS * 1000));
}
