/** What `npm run chaos` runs and for how long, from the environment (see the README, Fault suite). */
export interface ChaosConfig {
  /** Scenario numbers to run, in order. */
  scenarios: number[];
  /** Length of each PostgreSQL fault (scenarios 1 to 4) and of the tarpit (7). */
  outageSeconds: number;
  /** Length of each Redis fault (scenario 5). */
  redisOutageSeconds: number;
  /** How long the killed upstream stays down (scenario 6). */
  upstreamDownSeconds: number;
  soakMinutes: number;
  /** UPSTREAM_TIMEOUT_MS given to Portico. */
  upstreamTimeoutMs: number;
  /** Sessions calling a tool in a loop: the load every scenario runs under. */
  loadSessions: number;
  /** Pause between one session's calls, so the load leaves the shared cores some air. */
  callPauseMs: number;
  /** A client gives up a call after this long (and counts it as hung). */
  callTimeoutMs: number;
  slowlorisConnections: number;
  /** How long the slowloris scenario waits for Portico to cut its connections. */
  slowlorisSeconds: number;
  concurrentSessions: number;
  /** Clients that never read their event streams (scenario 11). */
  greedyClients: number;
  /** A database URL on the PostgreSQL server the suite makes its databases on. */
  postgresUrl: string;
  redisUrl: string;
  /** Where the Markdown table is written. */
  outputFile: string;
}

export const SCENARIO_COUNT = 11;

function number(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const parsed = Number(raw);
  if (!Number.isFinite(parsed) || parsed < min || parsed > max)
    throw new Error(`${name} must be a number from ${min} to ${max}, not '${raw}'`);
  return parsed;
}

function scenarios(): number[] {
  const raw = process.env.CHAOS_SCENARIOS?.trim();
  if (!raw) return Array.from({ length: SCENARIO_COUNT }, (_, i) => i + 1);
  const picked = raw.split(',').map((part) => Number(part.trim()));
  for (const scenario of picked)
    if (!Number.isInteger(scenario) || scenario < 1 || scenario > SCENARIO_COUNT)
      throw new Error(`CHAOS_SCENARIOS: '${raw}' names no scenario 1 to ${SCENARIO_COUNT}`);
  return [...new Set(picked)];
}

function loopbackUrl(name: string, fallback: string): string {
  const raw = process.env[name]?.trim() || fallback;
  const host = new URL(raw).hostname;
  // The suite refuses, black-holes and terminates what it is given: never anything off this host.
  if (host !== '127.0.0.1' && host !== 'localhost')
    throw new Error(`${name} must be on loopback (127.0.0.1), not ${host}`);
  return raw;
}

export function loadConfig(): ChaosConfig {
  return {
    scenarios: scenarios(),
    outageSeconds: number('CHAOS_OUTAGE_SECONDS', 90, 1, 3600),
    redisOutageSeconds: number('CHAOS_REDIS_OUTAGE_SECONDS', 20, 1, 3600),
    upstreamDownSeconds: number('CHAOS_UPSTREAM_DOWN_SECONDS', 10, 1, 3600),
    soakMinutes: number('CHAOS_SOAK_MINUTES', 10, 0.1, 24 * 60),
    upstreamTimeoutMs: number('CHAOS_UPSTREAM_TIMEOUT_MS', 10_000, 100, 3_600_000),
    loadSessions: number('CHAOS_LOAD_SESSIONS', 8, 2, 256),
    callPauseMs: number('CHAOS_CALL_PAUSE_MS', 10, 0, 60_000),
    callTimeoutMs: number('CHAOS_CALL_TIMEOUT_MS', 30_000, 1000, 600_000),
    slowlorisConnections: number('CHAOS_SLOWLORIS_CONNECTIONS', 200, 2, 10_000),
    slowlorisSeconds: number('CHAOS_SLOWLORIS_SECONDS', 120, 5, 3600),
    concurrentSessions: number('CHAOS_SESSIONS', 1000, 1, 100_000),
    greedyClients: number('CHAOS_GREEDY_CLIENTS', 20, 1, 1000),
    postgresUrl: loopbackUrl('CHAOS_POSTGRES_URL', 'postgres://postgres@127.0.0.1:5432/postgres'),
    redisUrl: loopbackUrl('CHAOS_REDIS_URL', 'redis://127.0.0.1:6379'),
    outputFile: process.env.CHAOS_OUTPUT?.trim() || 'bench/chaos/last-run.md',
  };
}
