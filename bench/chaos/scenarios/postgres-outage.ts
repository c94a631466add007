import { type ChaosConfig } from '../config';
import { FaultProxy } from '../../../test/support/fault-proxy';
import { HANG_MS, summarize, within } from '../load';
import { newSessionProbes, readyFigures, readyProbes, timeUntil, probeReady } from '../probes';
import { calls, type Check, ms, row } from '../report';
import {
  adminSql,
  type Portico,
  scenarioDatabase,
  sleep,
  startChaosPortico,
  through,
} from '../world';
import { callLoad, type Context, describeLoad, gateway, type Scenario, step } from './context';
import { openSession, closeSession } from '../load';

/** A way PostgreSQL goes away, and how it comes back. */
interface Fault {
  begin(): Promise<void>;
  end(): Promise<void>;
  /** What the fault did, for the table (backends terminated …). */
  figures(): string[];
}

type Kind = 'refused' | 'refusing-new' | 'blackholed' | 'cycling';

const TITLES: Record<Kind, string> = {
  refused: 'PostgreSQL refused (proxy closes every connection and stops listening)',
  'refusing-new': 'PostgreSQL refusing new connections only (ALLOW_CONNECTIONS false)',
  blackholed: 'PostgreSQL black-holed (proxy keeps connections, drops every byte)',
  cycling: 'PostgreSQL cycling backends (pg_terminate_backend every 0.1 s)',
};

const BASELINE_MS = 3000;
const RECOVERY_LIMIT_MS = 60_000;

/** How a fault on a database named `database` is made, and the URL Portico must use for it. */
async function faultFor(
  kind: Kind,
  context: Context,
  database: { name: string; url: string },
): Promise<{ fault: Fault; databaseUrl: string }> {
  const { config, scope } = context;
  switch (kind) {
    case 'refused':
    case 'blackholed': {
      const target = new URL(database.url);
      const proxy = await new FaultProxy(target.hostname, Number(target.port || 5432)).start();
      scope.defer('PostgreSQL proxy', () => proxy.close());
      const mode = kind === 'refused' ? 'refuse' : 'blackhole';
      return {
        databaseUrl: through(database.url, proxy.port),
        fault: {
          begin: () => proxy.setMode(mode),
          end: () => proxy.setMode('pass'),
          figures: () => [],
        },
      };
    }
    case 'refusing-new': {
      const allow = (value: boolean) =>
        adminSql(config, `ALTER DATABASE ${database.name} ALLOW_CONNECTIONS ${value}`).then(
          () => undefined,
        );
      return {
        databaseUrl: database.url,
        fault: { begin: () => allow(false), end: () => allow(true), figures: () => [] },
      };
    }
    case 'cycling': {
      let running = false;
      let loop: Promise<void> = Promise.resolve();
      let terminated = 0;
      let rounds = 0;
      const sql = `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database.name}' AND pid <> pg_backend_pid()`;
      return {
        databaseUrl: database.url,
        fault: {
          begin: async () => {
            running = true;
            const deadline = Date.now() + config.outageSeconds * 1000 + 10_000;
            loop = (async () => {
              while (running && Date.now() < deadline) {
                terminated += await adminSql(config, sql).catch(() => 0);
                rounds += 1;
                await sleep(100);
              }
            })();
          },
          end: async () => {
            running = false;
            await loop;
          },
          figures: () => [`${terminated} backends terminated in ${rounds} rounds`],
        },
      };
    }
  }
}

/** Whether a fresh session can be opened and call: what needs the database works again. */
async function freshSessionCalls(portico: Portico, tool: string): Promise<boolean> {
  const client = await openSession(portico.mcpUrl, portico.token, 5000);
  try {
    const result = await client.callTool({ name: tool, arguments: {} }, undefined, {
      timeout: 5000,
    });
    return !result.isError;
  } finally {
    await closeSession(client);
  }
}

async function postgresOutage(kind: Kind, id: number, context: Context) {
  const { config, scope } = context;
  const outageMs = config.outageSeconds * 1000;
  const database = await scenarioDatabase(config, scope);
  const { fault, databaseUrl } = await faultFor(kind, context, database);
  step(`database ${database.name}; starting Portico`);
  const portico = await startChaosPortico(config, scope, databaseUrl);
  step(`Portico on ${portico.baseUrl}; starting an upstream`);
  const { tool } = await gateway(context, portico, 'alpha');
  step('opening the load sessions');
  const load = await callLoad(context, portico, tool);
  const probesFor = outageMs + BASELINE_MS + RECOVERY_LIMIT_MS + 30_000;
  const ready = readyProbes(portico.baseUrl, probesFor);
  scope.defer('readiness probes', () => ready.stop());
  const fresh = newSessionProbes(portico.mcpUrl, portico.token, tool, 2000, probesFor);
  scope.defer('new-session probes', () => fresh.stop());
  await sleep(BASELINE_MS);

  step(`fault begins (${load.samples.length} calls so far)`);
  const from = Date.now();
  await fault.begin();
  await sleep(outageMs);
  await fault.end();
  const to = Date.now();
  step(`fault ends (${load.samples.length} calls so far); waiting for recovery`);
  const recoveryMs =
    portico.death() === null
      ? await timeUntil(
          async () =>
            (await probeReady(portico.baseUrl)).status === 200 &&
            (await freshSessionCalls(portico, tool)),
          RECOVERY_LIMIT_MS,
        )
      : null;
  await sleep(2000);
  const end = Date.now();
  step(`recovered after ${ms(recoveryMs)}; stopping the load`);
  await Promise.all([ready.stop(), fresh.stop(), load.stop()]);

  const baseline = summarize(within(load.samples, from - BASELINE_MS, from));
  const during = summarize(within(load.samples, from, to));
  const after = summarize(within(load.samples, to, end));
  // Judged on every call of the scenario: one begun just before the fault may hang through it.
  const overall = summarize(load.samples);
  const firstFailure = load.samples.find((s) => !s.ok);
  const readiness = readyFigures(ready.results, from, to);
  const newSessions = summarize(within(fresh.results, from, to));
  const death = portico.death();
  const figures = [
    `baseline ${calls(baseline)}`,
    `during: ${calls(during)}`,
    `after: ${calls(after)}`,
    ...(firstFailure ? [`first failed call ${ms(firstFailure.at - from)} into the fault`] : []),
    `new sessions during: ${newSessions.ok} ok / ${newSessions.failed} failed, max ${ms(newSessions.max)}`,
    `/readyz during: max ${ms(readiness.maxMs)}, ${readiness.unanswered} of ${readiness.probes} unanswered in 5 s, first 503 after ${ms(readiness.first503Ms)}, 200 again ${ms(readiness.back200Ms)} after`,
    ...fault.figures(),
    death ? `process ${death}` : 'process alive',
    `recovered (ready, new session calls) ${recoveryMs !== null ? `${ms(recoveryMs)} after` : death ? 'never: process gone' : `not within ${ms(RECOVERY_LIMIT_MS)}`}`,
  ];
  const stopsServing = kind === 'refused' || kind === 'blackholed';
  const checks: Check[] = [
    [death === null, `process ${death}`],
    [overall.failed === 0, `${overall.failed} calls failed through sessions opened before`],
    [during.ok > 0, 'no call succeeded during the outage'],
    [
      overall.hung + newSessions.hung === 0,
      `${overall.hung + newSessions.hung} requests hung past ${HANG_MS / 1000} s`,
    ],
    [readiness.maxMs <= 1000, `/readyz took up to ${ms(readiness.maxMs)} (limit 1 s)`],
    [
      !stopsServing || (readiness.first503Ms !== null && readiness.first503Ms <= 2000),
      `/readyz did not answer 503 within 2 s (first after ${ms(readiness.first503Ms)})`,
    ],
    [
      recoveryMs !== null && recoveryMs <= 30_000,
      `recovery took ${recoveryMs === null ? 'too long' : ms(recoveryMs)} (limit 30 s)`,
    ],
  ];
  return [
    row(
      String(id),
      `${TITLES[kind]}, ${config.outageSeconds} s`,
      `${describeLoad(config)}; a new session every 2 s; /readyz every 0.25 s`,
      figures,
      checks,
    ),
  ];
}

const outage = (id: number, kind: Kind): Scenario => ({
  id,
  title: TITLES[kind],
  budgetMs: (config: ChaosConfig) => config.outageSeconds * 1000 + 240_000,
  run: (context) => postgresOutage(kind, id, context),
});

export const postgresOutages: Scenario[] = [
  outage(1, 'refused'),
  outage(2, 'refusing-new'),
  outage(3, 'blackholed'),
  outage(4, 'cycling'),
];
