import { closeSession, openSession, type Sample, sample } from './load';
import { rssMiB, sleep } from './world';

/**
 * Runs `probe` every `intervalMs` (one at a time: a probe that hangs delays the next, as it would
 * delay a load balancer's) until stopped or `maxMs` has passed, keeping what each returned.
 */
export class Repeat<T> {
  readonly results: T[] = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(intervalMs: number, maxMs: number, probe: () => Promise<T>) {
    this.done = (async () => {
      const deadline = Date.now() + maxMs;
      while (this.running && Date.now() < deadline) {
        const started = Date.now();
        this.results.push(await probe());
        await sleep(Math.max(0, intervalMs - (Date.now() - started)));
      }
    })();
  }

  async stop(): Promise<T[]> {
    this.running = false;
    await this.done;
    return this.results;
  }
}

/** A `/readyz` answer: its status, 0 when none came within the probe's 5 s. */
export interface ReadyProbe {
  at: number;
  ms: number;
  status: number;
}

export const READY_PROBE_TIMEOUT_MS = 5000;

export function probeReady(baseUrl: string): Promise<ReadyProbe> {
  const at = Date.now();
  const start = performance.now();
  return fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(READY_PROBE_TIMEOUT_MS) })
    .then(async (response) => {
      await response.arrayBuffer();
      return { at, ms: performance.now() - start, status: response.status };
    })
    .catch(() => ({ at, ms: performance.now() - start, status: 0 }));
}

export const readyProbes = (baseUrl: string, maxMs: number) =>
  new Repeat(250, maxMs, () => probeReady(baseUrl));

/** What readiness probes showed around a fault from `from` to `to`. */
export interface ReadyFigures {
  /** Longest answer (or wait for none) during the fault, ms. */
  maxMs: number;
  unanswered: number;
  probes: number;
  /** From the fault's start to the end of the first 503, ms; null if none came. */
  first503Ms: number | null;
  /** From the fault's end to the first 200 after it, ms; null if none came. */
  back200Ms: number | null;
}

export function readyFigures(probes: ReadyProbe[], from: number, to: number): ReadyFigures {
  const during = probes.filter((probe) => probe.at >= from && probe.at < to);
  const first503 = during.find((probe) => probe.status === 503);
  const back = probes.find((probe) => probe.at >= to && probe.status === 200);
  return {
    maxMs: Math.max(0, ...during.map((probe) => probe.ms)),
    unanswered: during.filter((probe) => probe.status === 0).length,
    probes: during.length,
    first503Ms: first503 ? first503.at + first503.ms - from : null,
    back200Ms: back ? back.at + back.ms - to : null,
  };
}

/** A new session opened and one call made through it, every `intervalMs`. */
export const newSessionProbes = (
  url: string,
  token: string,
  tool: string,
  intervalMs: number,
  maxMs: number,
) =>
  new Repeat<Sample>(intervalMs, maxMs, () =>
    sample(async () => {
      const client = await openSession(url, token, 10_000);
      try {
        return await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 10_000 });
      } finally {
        await closeSession(client);
      }
    }),
  );

export interface RssSample {
  at: number;
  mib: number | null;
}

export const rssSamples = (pid: number | undefined, intervalMs: number, maxMs: number) =>
  new Repeat<RssSample>(intervalMs, maxMs, async () => ({ at: Date.now(), mib: rssMiB(pid) }));

/**
 * Polls `probe` until it returns true or `maxMs` passes: how long after the call it came true,
 * or null if it never did.
 */
export async function timeUntil(
  probe: () => Promise<boolean>,
  maxMs: number,
  intervalMs = 250,
): Promise<number | null> {
  const start = Date.now();
  while (Date.now() - start <= maxMs) {
    if (await probe().catch(() => false)) return Date.now() - start;
    await sleep(intervalMs);
  }
  return null;
}
