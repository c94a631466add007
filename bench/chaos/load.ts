import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpClient, percentile } from '../support';
import { sleep, withTimeout } from './world';

/** One request as a client saw it. */
export interface Sample {
  /** When it started (Date.now()). */
  at: number;
  ms: number;
  ok: boolean;
  error?: string;
}

/** How long a session waits after a failed call before its next. */
const FAILURE_PAUSE_MS = 100;

/** A call that takes longer than this counts as hung. */
export const HANG_MS = 5000;

export interface Summary {
  ok: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
  hung: number;
  /** The commonest failures, with their counts. */
  errors: string;
}

export function summarize(samples: Sample[]): Summary {
  const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const counts = new Map<string, number>();
  for (const sample of samples)
    if (!sample.ok) counts.set(sample.error!, (counts.get(sample.error!) ?? 0) + 1);
  const errors = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([message, count]) => `${count}× ${message}`)
    .join('; ');
  return {
    ok: samples.filter((sample) => sample.ok).length,
    failed: samples.filter((sample) => !sample.ok).length,
    p50: times.length ? percentile(times, 0.5) : NaN,
    p99: times.length ? percentile(times, 0.99) : NaN,
    max: times.at(-1) ?? NaN,
    hung: times.filter((ms) => ms > HANG_MS).length,
    errors,
  };
}

/** Samples that started in [from, to). */
export const within = (samples: Sample[], from: number, to: number) =>
  samples.filter((sample) => sample.at >= from && sample.at < to);

/** A failure's message, short and without what varies from call to call. */
export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/\s+/g, ' ')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
    .slice(0, 140);
}

/** Times one request; a thrown error or an `isError` result is a failure. */
export async function sample(work: () => Promise<unknown>): Promise<Sample> {
  const at = Date.now();
  const start = performance.now();
  try {
    const result = (await work()) as { isError?: boolean; content?: { text?: string }[] };
    const ms = performance.now() - start;
    if (result?.isError)
      return { at, ms, ok: false, error: `isError: ${describe(result.content?.[0]?.text)}` };
    return { at, ms, ok: true };
  } catch (error) {
    return { at, ms: performance.now() - start, ok: false, error: describe(error) };
  }
}

/** Opens an SDK client session (its GET stream too), failing after `timeoutMs`. */
export function openSession(url: string, token: string, timeoutMs: number): Promise<Client> {
  return withTimeout(mcpClient(url, token, { timeout: timeoutMs }), timeoutMs + 1000, 'initialize');
}

/** Ends a session as a client does (DELETE), then its transport; bounded. */
export async function closeSession(client: Client): Promise<boolean> {
  try {
    const transport = client.transport as StreamableHTTPClientTransport | undefined;
    await withTimeout(transport?.terminateSession() ?? Promise.resolve(), 5000, 'DELETE');
    return true;
  } catch {
    return false;
  } finally {
    await withTimeout(client.close(), 5000, 'close').catch(() => undefined);
  }
}

export interface LoadOptions {
  url: string;
  token: string;
  sessions: number;
  tool: string;
  pauseMs: number;
  timeoutMs: number;
  /** The loops end by themselves after this long, even if never stopped. */
  maxMs: number;
}

/**
 * Sessions, all opened before anything breaks, each calling one tool in a loop until stopped:
 * what "calls through sessions opened before" the fault means.
 */
export class CallLoad {
  readonly samples: Sample[] = [];
  private running = true;
  private loops: Promise<void>[] = [];
  private stopped: Promise<void> | undefined;

  private constructor(private readonly clients: Client[]) {}

  static async start(options: LoadOptions): Promise<CallLoad> {
    const opened = await Promise.allSettled(
      Array.from({ length: options.sessions }, () =>
        openSession(options.url, options.token, options.timeoutMs),
      ),
    );
    const clients = opened.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    );
    const refused = opened.find((result) => result.status === 'rejected');
    if (refused) {
      await Promise.all(clients.map((client) => closeSession(client)));
      throw new Error(`a load session did not open: ${describe(refused.reason)}`);
    }
    const load = new CallLoad(clients);
    load.loops = clients.map((client, i) => load.loop(client, options, i));
    return load;
  }

  /** Stops calling, waits for the calls in flight (each bounded by its timeout), ends sessions. */
  stop(): Promise<void> {
    this.running = false;
    this.stopped ??= (async () => {
      await Promise.all(this.loops);
      await Promise.all(this.clients.map((client) => closeSession(client)));
    })();
    return this.stopped;
  }

  private async loop(client: Client, options: LoadOptions, index: number): Promise<void> {
    let n = 0;
    const deadline = Date.now() + options.maxMs;
    while (this.running && Date.now() < deadline) {
      n += 1;
      const result = await sample(() =>
        client.callTool({ name: options.tool, arguments: { session: index, n } }, undefined, {
          timeout: options.timeoutMs,
        }),
      );
      this.samples.push(result);
      // A failure can come back in a millisecond (a dead process): no spinning on the shared cores.
      const pause = result.ok ? options.pauseMs : Math.max(options.pauseMs, FAILURE_PAUSE_MS);
      if (pause > 0) await sleep(pause);
    }
  }
}
