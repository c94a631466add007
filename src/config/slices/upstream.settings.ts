/**
 * How this replica protects itself, and the other upstreams, from an upstream that is down,
 * hanging or slow. All of it is per replica: each keeps its own breakers and counts.
 */
export interface UpstreamResilienceConfig {
  /** Failures in a row (no answer, no connection, 5xx) that open a gateway's breaker; 0: never. */
  failureThreshold: number;
  /** The first wait before an open breaker lets a trial call through; doubled after each failed trial. */
  firstCooldownMs: number;
  /** The longest such wait. */
  cooldownMs: number;
  /** Calls to one gateway running at once. */
  maxConcurrent: number;
  /** Calls to one gateway waiting for a slot; beyond it they are refused at once. */
  maxQueue: number;
  /** How long a call waits for a slot before it is refused. */
  queueTimeoutMs: number;
  /** Idempotent reads retried after a connection failure (never tools/call). */
  retry: { retries: number; backoffMs: number };
}

/** How Portico talks to upstreams: timeouts, resilience, message size, stdio processes and sync. Injected by the modules that need it. */
export abstract class UpstreamSettings {
  abstract readonly upstreamTimeoutMs: number;
  /** The longest one call to an upstream may run, however often it says it is still at it. */
  abstract readonly upstreamCallMaxMs: number;
  /** How long an upstream's era verdict (2026-07-28 or 2025) holds before it is probed again. */
  abstract readonly upstreamEraTtlSeconds: number;
  /**
   * How long a 2026-07-28 client has to answer an input round: its requestState expires, and a
   * call parked for it (a 2025 upstream asked for input) is cancelled upstream.
   */
  abstract readonly inputRoundTtlSeconds: number;
  abstract readonly upstreamResilience: UpstreamResilienceConfig;
  /** The largest message an upstream may send: one JSON body, event or stdio line. */
  abstract readonly upstreamMessageLimitBytes: number;
  /** Commands a stdio gateway may launch (exact names, no shell); empty: stdio is off. */
  abstract readonly stdioCommands: readonly string[];
  /** Stdio processes this replica runs at most, spares included. */
  abstract readonly stdioMaxProcesses: number;
  /** Spare processes kept started per stdio gateway, so a new session does not wait. */
  abstract readonly stdioWarmProcesses: number;
  /** How long a stdio gateway's spares outlive its last use. */
  abstract readonly stdioIdleSeconds: number;
  abstract readonly syncIntervalSeconds: number;
  /** How often the leader looks for upstream OAuth tokens about to expire. */
  abstract readonly oauthRefreshSeconds: number;
  /** How long a gateway's change waits for its sync before answering. */
  abstract readonly syncChangeWaitMs: number;
}
