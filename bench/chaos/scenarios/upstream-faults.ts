import { type ChaosConfig } from '../config';
import { FaultProxy } from '../../../test/support/fault-proxy';
import {
  type CallLoad,
  openSession,
  closeSession,
  type Sample,
  sample,
  summarize,
  type Summary,
  within,
} from '../load';
import { Repeat, timeUntil } from '../probes';
import { calls, ms, row } from '../report';
import {
  addGateway,
  chaosUpstream,
  freePort,
  type Portico,
  scenarioDatabase,
  sleep,
  startChaosPortico,
  through,
} from '../world';
import { callLoad, type Context, describeLoad, gateway, type Scenario, step } from './context';

const BASELINE_MS = 3000;
const RECOVERY_LIMIT_MS = 60_000;

/** Whether `during` is no slower than `baseline` beyond what a shared machine's noise explains. */
const unslowed = (baseline: Summary, during: Summary) =>
  during.p99 <= Math.max(2 * baseline.p99, baseline.p99 + 250);

/** From `to` until a call of `load` that succeeded ended after it; null if none within the limit. */
async function recovery(load: CallLoad, to: number): Promise<number | null> {
  const first = () => load.samples.find((s) => s.ok && s.at + s.ms > to);
  await timeUntil(async () => first() !== undefined, RECOVERY_LIMIT_MS);
  const found = first();
  return found ? found.at + found.ms - to : null;
}

async function stage(context: Context): Promise<Portico> {
  const database = await scenarioDatabase(context.config, context.scope);
  step(`database ${database.name}; starting Portico`);
  return startChaosPortico(context.config, context.scope, database.url);
}

const upstreamKilled: Scenario = {
  id: 6,
  title: 'An upstream killed and restarted, beside an untouched one',
  budgetMs: (config: ChaosConfig) => config.upstreamDownSeconds * 1000 + 240_000,
  run: async (context) => {
    const { config, scope } = context;
    const portico = await stage(context);
    const port = await freePort();
    let alpha = await chaosUpstream(scope, port);
    await addGateway(portico, 'alpha', alpha.url);
    const beta = await gateway(context, portico, 'beta');
    const half = Math.ceil(config.loadSessions / 2);
    const alphaLoad = await callLoad(context, portico, 'alpha-tool_1', half);
    const betaLoad = await callLoad(context, portico, beta.tool, config.loadSessions - half);
    await sleep(BASELINE_MS);

    step('killing upstream alpha (SIGKILL)');
    const from = Date.now();
    const exited = new Promise((resolve) => alpha.child.once('exit', resolve));
    alpha.child.kill('SIGKILL');
    await exited;
    await sleep(config.upstreamDownSeconds * 1000);
    alpha = await chaosUpstream(scope, port);
    const to = Date.now();
    step('upstream alpha listens again');
    const recoveredMs = await recovery(alphaLoad, to);
    await sleep(2000);
    await Promise.all([alphaLoad.stop(), betaLoad.stop()]);

    const alphaDuring = within(alphaLoad.samples, from, to);
    const failures = summarize(alphaDuring.filter((s) => !s.ok));
    const betaBaseline = summarize(within(betaLoad.samples, from - BASELINE_MS, from));
    const betaDuring = summarize(within(betaLoad.samples, from, to));
    const death = portico.death();
    return [
      row(
        '6',
        `Upstream killed (SIGKILL) for ${config.upstreamDownSeconds} s and restarted on its port, beside an untouched one`,
        `${describeLoad(config)}, half on each upstream`,
        [
          `killed upstream's calls: ${failures.failed} failed, in p50 ${ms(failures.p50)}, p99 ${ms(failures.p99)}, max ${ms(failures.max)} (${failures.errors || 'none'})`,
          `recovered ${recoveredMs === null ? `not within ${ms(RECOVERY_LIMIT_MS)}` : `${ms(recoveredMs)} after it listened again`}`,
          `other upstream before: ${calls(betaBaseline)}`,
          `other upstream during: ${calls(betaDuring)}`,
          death ? `process ${death}` : 'process alive',
        ],
        [
          [death === null, `process ${death}`],
          [
            failures.failed === 0 || failures.p50 < 1000,
            `the dead upstream's calls failed in p50 ${ms(failures.p50)} (limit 1 s)`,
          ],
          [
            recoveredMs !== null && recoveredMs <= 5000,
            `recovery took ${recoveredMs === null ? 'too long' : ms(recoveredMs)} (limit 5 s)`,
          ],
          [betaDuring.failed === 0, `${betaDuring.failed} calls to the untouched upstream failed`],
          [
            unslowed(betaBaseline, betaDuring),
            `the untouched upstream slowed: p99 ${ms(betaBaseline.p99)} → ${ms(betaDuring.p99)}`,
          ],
        ],
      ),
    ];
  },
};

const tarpitSeconds = (config: ChaosConfig) =>
  Math.max(config.outageSeconds, (3 * config.upstreamTimeoutMs) / 1000 + 5);

const tarpit: Scenario = {
  id: 7,
  title: 'A tarpit upstream (accepts, never answers) beside a healthy one',
  budgetMs: (config: ChaosConfig) => tarpitSeconds(config) * 1000 + 300_000,
  run: async (context) => {
    const { config, scope } = context;
    const portico = await stage(context);
    const upstream = await chaosUpstream(scope);
    const target = new URL(upstream.url);
    const proxy = await new FaultProxy(target.hostname, Number(target.port)).start();
    scope.defer('tarpit proxy', () => proxy.close());
    await addGateway(portico, 'alpha', through(upstream.url, proxy.port));
    const beta = await gateway(context, portico, 'beta');
    const sessions = Math.ceil(config.loadSessions / 2);
    const tarpitLoad = await callLoad(context, portico, 'alpha-tool_1', sessions);
    const betaLoad = await callLoad(context, portico, beta.tool, config.loadSessions - sessions);
    const lister = await openSession(portico.mcpUrl, portico.token, 10_000);
    scope.defer('tools/list session', () => closeSession(lister));
    const lists = new Repeat<Sample>(500, tarpitSeconds(config) * 1000 + 120_000, () =>
      sample(() => lister.listTools(undefined, { timeout: config.callTimeoutMs })),
    );
    scope.defer('tools/list probes', () => lists.stop());
    await sleep(BASELINE_MS);

    step('upstream alpha becomes a tarpit');
    const from = Date.now();
    proxy.resetPeak();
    await proxy.setMode('blackhole');
    const seconds = tarpitSeconds(config);
    await sleep(seconds * 1000);
    const peakSockets = proxy.peakOpen;
    await proxy.setMode('pass');
    const to = Date.now();
    step('upstream alpha answers again');
    const recoveredMs = await recovery(tarpitLoad, to);
    await sleep(2000);
    await Promise.all([tarpitLoad.stop(), betaLoad.stop(), lists.stop()]);

    const half = (to - from) / 2;
    const first = summarize(within(tarpitLoad.samples, from, from + half));
    // Calls that began in the second half, and a second or more before the tarpit ended, so that
    // one it cut short does not pass for one that failed fast.
    const last = summarize(within(tarpitLoad.samples, from + half, to - 1000));
    const betaBaseline = summarize(within(betaLoad.samples, from - BASELINE_MS, from));
    const betaDuring = summarize(within(betaLoad.samples, from, to));
    const slices = 6;
    const overTime = Array.from({ length: slices }, (_, i) => {
      const slice = summarize(
        within(
          tarpitLoad.samples,
          from + (i * (to - from)) / slices,
          from + ((i + 1) * (to - from)) / slices,
        ),
      );
      return `${ms(slice.p50)} (${slice.ok + slice.failed})`;
    });
    const listBaseline = summarize(within(lists.results, from - BASELINE_MS, from));
    const listDuring = summarize(within(lists.results, from, to));
    const death = portico.death();
    return [
      row(
        '7',
        `Tarpit upstream for ${seconds} s (UPSTREAM_TIMEOUT_MS ${config.upstreamTimeoutMs}) beside a healthy one`,
        `${describeLoad(config)}, half on each upstream; tools/list every 0.5 s`,
        [
          `tarpit calls' p50 (count) by sixths of the time: ${overTime.join(', ')}`,
          `first half: ${calls(first)}`,
          `second half: ${calls(last)}`,
          `sockets open to the tarpit at most ${peakSockets}`,
          `recovered ${recoveredMs === null ? `not within ${ms(RECOVERY_LIMIT_MS)}` : `${ms(recoveredMs)} after it answered again`}`,
          `healthy upstream before: ${calls(betaBaseline)}`,
          `during: ${calls(betaDuring)}`,
          `tools/list before: p50 ${ms(listBaseline.p50)}, p99 ${ms(listBaseline.p99)}; during: p50 ${ms(listDuring.p50)}, p99 ${ms(listDuring.p99)}, ${listDuring.failed} failed`,
          death ? `process ${death}` : 'process alive',
        ],
        [
          [death === null, `process ${death}`],
          [
            last.ok + last.failed > 0 && last.p50 < 1000,
            `the tarpit's calls in the second half still took p50 ${ms(last.p50)} (${last.ok + last.failed} calls; want fail-fast under 1 s once a breaker opens)`,
          ],
          [betaDuring.failed === 0, `${betaDuring.failed} calls to the healthy upstream failed`],
          [
            unslowed(betaBaseline, betaDuring),
            `the healthy upstream slowed: p99 ${ms(betaBaseline.p99)} → ${ms(betaDuring.p99)}`,
          ],
          [
            listDuring.failed === 0 && unslowed(listBaseline, listDuring),
            `tools/list suffered: ${listDuring.failed} failed, p99 ${ms(listBaseline.p99)} → ${ms(listDuring.p99)}`,
          ],
          [
            recoveredMs !== null && recoveredMs <= 30_000,
            `recovery took ${recoveredMs === null ? 'too long' : ms(recoveredMs)} (limit 30 s)`,
          ],
        ],
      ),
    ];
  },
};

export const upstreamFaults: Scenario[] = [upstreamKilled, tarpit];
