import { setTimeout as delay } from 'node:timers/promises';
import { UpstreamFailure, UpstreamRefused } from '../upstream-error';

/** How idempotent requests are retried when the connection failed. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 never retries. */
  retries: number;
  /** The first wait; each retry doubles it, with jitter. */
  backoffMs: number;
}

/**
 * Requests that change nothing upstream, so that sending one twice is harmless: the handshake,
 * lists, reads and gets. Never `tools/call`, whose tool may have run before the connection broke.
 */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'initialize',
  'ping',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

/**
 * Whether a failed idempotent request is worth another attempt: only when the connection failed
 * (refused, reset, closed early). A timeout would double the wait, an answer of any kind would be
 * the same again, and a refusal of Portico's own (circuit open, queue full) stands.
 */
export function isRetryable(error: unknown): boolean {
  return (
    error instanceof UpstreamFailure &&
    error.kind === 'unreachable' &&
    !(error instanceof UpstreamRefused)
  );
}

/**
 * The wait after `inARow` of something in a row (failures, streams that ended empty): `firstMs`,
 * doubled for each one before it, at most `mostMs`; none for none.
 */
export function doublingWait(inARow: number, firstMs: number, mostMs: number): number {
  return inARow === 0 ? 0 : Math.min(firstMs * 2 ** (inARow - 1), mostMs);
}

/** The wait before retry `attempt` (0 for the first): doubling, between half and all of it. */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = policy.backoffMs * 2 ** attempt;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Runs `attempt`, and for an idempotent request whose connection failed runs it again after a
 * backoff, up to the policy's retries, while the connection stays open (`open()`). A request that
 * is never retried (a `tools/call`) is its one attempt, with nothing around it.
 */
export function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy | undefined,
  idempotent: boolean,
  open: () => boolean,
  signal?: AbortSignal,
): Promise<T> {
  if (!policy || !idempotent || policy.retries === 0) return attempt();
  return retrying(attempt, policy, open, signal);
}

async function retrying<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  open: () => boolean,
  signal?: AbortSignal,
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= policy.retries || !isRetryable(error) || !open()) throw error;
      try {
        await delay(retryDelay(policy, tried), undefined, { signal });
      } catch {
        throw new UpstreamFailure('cancelled', String(signal?.reason ?? 'cancelled'));
      }
    }
  }
}
