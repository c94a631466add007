import { UpstreamFailure, UpstreamRefused } from './upstream-error';

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

/** The wait before retry `attempt` (0 for the first): doubling, between half and all of it. */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = policy.backoffMs * 2 ** attempt;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
