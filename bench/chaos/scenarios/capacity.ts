import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type ChaosConfig } from '../config';
import { closeSession, HANG_MS, openSession, summarize } from '../load';
import { rssSamples, type RssSample } from '../probes';
import { calls, type Check, count, ms, row } from '../report';
import { rssMiB, scenarioDatabase, sleep, startChaosPortico } from '../world';
import { callLoad, type Context, describeLoad, gateway, type Scenario, step } from './context';

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

const mib = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(0)} MiB`);

const concurrentSessions: Scenario = {
  id: 9,
  title: 'Concurrent sessions: open, call once each, close',
  budgetMs: (config: ChaosConfig) => 300_000 + config.concurrentSessions * 200,
  run: async (context: Context) => {
    const { config, scope } = context;
    const database = await scenarioDatabase(config, scope);
    const portico = await startChaosPortico(config, scope, database.url);
    const { tool } = await gateway(context, portico, 'alpha');
    await sleep(3000);
    const pid = portico.child.pid;
    const rssBefore = rssMiB(pid);
    const total = config.concurrentSessions;

    step(`opening ${count(total)} sessions`);
    const openStart = performance.now();
    const opened = await inParallel(Array.from({ length: total }), 50, () =>
      openSession(portico.mcpUrl, portico.token, config.callTimeoutMs).catch(
        (error: Error) => error,
      ),
    );
    const openMs = performance.now() - openStart;
    const clients = opened.filter((client): client is Client => !(client instanceof Error));
    scope.defer('sessions', () => inParallel(clients, 50, (client) => closeSession(client)));
    const openErrors = opened.filter((client) => client instanceof Error);
    const called = await inParallel(clients, 50, (client) =>
      client
        .callTool({ name: tool, arguments: {} }, undefined, { timeout: config.callTimeoutMs })
        .then((result) => !result.isError)
        .catch(() => false),
    );
    await sleep(2000);
    const rssOpen = rssMiB(pid);

    step('closing them');
    const closed = await inParallel(clients, 50, (client) => closeSession(client));
    await sleep(5000);
    const rssAfter = rssMiB(pid);

    const callsOk = called.filter(Boolean).length;
    const closedClean = closed.filter(Boolean).length;
    const perSessionKiB =
      rssBefore !== null && rssOpen !== null && clients.length
        ? ((rssOpen - rssBefore) * 1024) / clients.length
        : null;
    const death = portico.death();
    const checks: Check[] = [
      [death === null, `process ${death}`],
      [
        clients.length === total,
        `${openErrors.length} sessions failed to open (${openErrors[0]?.message.slice(0, 100)})`,
      ],
      [callsOk === clients.length, `${clients.length - callsOk} calls through them failed`],
      [
        closedClean === clients.length,
        `${clients.length - closedClean} sessions did not close cleanly`,
      ],
    ];
    return [
      row(
        '9',
        `${count(total)} concurrent sessions (SDK clients, each with its GET stream)`,
        'opened and closed 50 at a time, one call each',
        [
          `${count(clients.length)} opened in ${ms(openMs)}`,
          `${count(callsOk)} calls ok`,
          `${count(closedClean)} closed cleanly`,
          `RSS ${mib(rssBefore)} → ${mib(rssOpen)} open → ${mib(rssAfter)} after closing`,
          `${perSessionKiB === null ? 'n/a' : `${perSessionKiB.toFixed(0)} KiB`} per session`,
          death ? `process ${death}` : 'process alive',
        ],
        checks,
      ),
    ];
  },
};

/** Least-squares slope of RSS over time, MiB per minute, past the first fifth (warm-up). */
export function rssSlope(samples: RssSample[]): number | null {
  const points = samples.filter((s) => s.mib !== null);
  if (points.length < 3) return null;
  const start = points[0]!.at;
  const span = points.at(-1)!.at - start;
  const kept = points.filter((s) => s.at - start >= span / 5);
  if (kept.length < 3) return null;
  const xs = kept.map((s) => (s.at - start) / 60_000);
  const ys = kept.map((s) => s.mib!);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const mx = mean(xs);
  const my = mean(ys);
  const covariance = xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i]! - my), 0);
  const variance = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  return variance === 0 ? null : covariance / variance;
}

/** Shorter soaks see garbage collection's sawtooth more than a trend: their slope is not judged. */
const JUDGED_SOAK_MINUTES = 5;
const SLOPE_PASS = 1;

const soak: Scenario = {
  id: 10,
  title: 'Soak: calls for CHAOS_SOAK_MINUTES, RSS every 10 s',
  budgetMs: (config: ChaosConfig) => config.soakMinutes * 60_000 + 180_000,
  run: async (context: Context) => {
    const { config, scope } = context;
    const database = await scenarioDatabase(config, scope);
    const portico = await startChaosPortico(config, scope, database.url);
    const { tool } = await gateway(context, portico, 'alpha');
    const soakMs = config.soakMinutes * 60_000;
    const load = await callLoad(context, portico, tool);
    const rss = rssSamples(portico.child.pid, 10_000, soakMs + 60_000);
    scope.defer('RSS samples', () => rss.stop());
    const end = Date.now() + soakMs;
    while (Date.now() < end && portico.death() === null) {
      await sleep(Math.min(60_000, end - Date.now()));
      step(`soak: ${count(load.samples.length)} calls, RSS ${mib(rssMiB(portico.child.pid))}`);
    }
    await Promise.all([load.stop(), rss.stop()]);

    const summary = summarize(load.samples);
    const slope = rssSlope(rss.results);
    const values = rss.results.map((s) => s.mib).filter((v): v is number => v !== null);
    const judged = config.soakMinutes >= JUDGED_SOAK_MINUTES;
    const death = portico.death();
    const checks: Check[] = [
      [death === null, `process ${death}`],
      [summary.failed === 0, `${summary.failed} calls failed`],
      [summary.hung === 0, `${summary.hung} calls hung past ${HANG_MS / 1000} s`],
      [
        !judged || (slope !== null && slope <= SLOPE_PASS),
        `RSS grew ${slope?.toFixed(2)} MiB/min (limit ${SLOPE_PASS})`,
      ],
    ];
    return [
      row(
        '10',
        `Soak, ${config.soakMinutes} min`,
        describeLoad(config),
        [
          calls(summary),
          `RSS ${mib(values[0] ?? null)} → ${mib(values.at(-1) ?? null)} (max ${mib(values.length ? Math.max(...values) : null)}), ${values.length} samples`,
          `trend ${slope === null ? 'n/a' : `${slope >= 0 ? '+' : ''}${slope.toFixed(2)} MiB/min`}${judged ? '' : ` (not judged under ${JUDGED_SOAK_MINUTES} min)`}`,
          death ? `process ${death}` : 'process alive',
        ],
        checks,
      ),
    ];
  },
};

export const capacity: Scenario[] = [concurrentSessions, soak];
