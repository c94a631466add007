import { randomBytes } from 'node:crypto';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { api } from '../../support';
import { type ChaosConfig } from '../config';
import { FaultProxy, type ProxyMode } from '../../../test/support/fault-proxy';
import { closeSession, HANG_MS, openSession, summarize, within } from '../load';
import { timeUntil } from '../probes';
import { calls, type Check, ms, row, type Row, skipped } from '../report';
import {
  newDeployment,
  type Portico,
  redisAnswers,
  scenarioDatabase,
  sleep,
  startChaosPortico,
  through,
  toolId,
} from '../world';
import { callLoad, type Context, describeLoad, gateway, type Scenario, step } from './context';

const TITLE = 'Redis refused, then partitioned, under two replicas';
/** How long a replica may take to catch up once Redis is back. */
const CATCH_UP_LIMIT_MS = 15_000;
const CATCH_UP_PASS_MS = 10_000;
const WRITE_PASS_MS = 2000;

interface Timed {
  status: number;
  ms: number;
}

/** A REST or MCP request as an operator's tool makes it: its status (0: no answer) and time. */
async function timedFetch(url: string, init: RequestInit): Promise<Timed> {
  const start = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - start };
  } catch {
    return { status: 0, ms: performance.now() - start };
  }
}

const timed = (t: Timed) => `${t.status || 'no answer'} in ${ms(t.ms)}`;

/** What a replica answers a request of session `sessionId` it may have cached. */
async function sessionStatus(
  portico: Portico,
  sessionId: string,
  protocolVersion: string,
): Promise<number> {
  return (
    await timedFetch(portico.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${portico.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': protocolVersion,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
  ).status;
}

async function redisOutage(
  context: Context,
  label: string,
  mode: ProxyMode,
  stage: {
    a: Portico;
    b: Portico;
    proxy: FaultProxy;
    disabledTool: string;
    disabledToolId: string;
    servedOnB: () => Promise<boolean>;
  },
): Promise<Row> {
  const { config } = context;
  const { a, b, proxy, disabledTool, disabledToolId, servedOnB } = stage;
  const patch = (enabled: boolean) =>
    timedFetch(`${a.baseUrl}/api/v1/tools/${disabledToolId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    });

  await patch(true);
  const servedBefore = await timeUntil(servedOnB, CATCH_UP_LIMIT_MS);
  const victim = await openSession(a.mcpUrl, a.token, 10_000);
  const transport = victim.transport as StreamableHTTPClientTransport;
  const sessionId = transport.sessionId!;
  const version = transport.protocolVersion ?? '2025-06-18';
  const knownOnB = await sessionStatus(b, sessionId, version);
  const loads = [
    await callLoad(context, a, `alpha-tool_1`, Math.ceil(config.loadSessions / 2)),
    await callLoad(context, b, `alpha-tool_1`, Math.floor(config.loadSessions / 2), b.mcpUrl),
  ];
  await sleep(2000);

  step(`${label}: Redis ${mode}`);
  const from = Date.now();
  await proxy.setMode(mode);
  await sleep(2000);
  // Both are awaited only after the outage, so one that hangs does not lengthen it.
  const disabled = patch(false);
  const deleted = timedFetch(a.mcpUrl, {
    method: 'DELETE',
    headers: {
      authorization: `Bearer ${a.token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': version,
    },
  });
  await sleep(Math.max(0, config.redisOutageSeconds * 1000 - (Date.now() - from)));
  await proxy.setMode('pass');
  const to = Date.now();
  const [disabling, deleting] = await Promise.all([disabled, deleted]);
  await victim.close().catch(() => undefined);
  step(`${label}: Redis back; waiting for replica B to catch up`);
  // From Redis's return, though a hung PATCH or DELETE may have kept us until later.
  const sinceReturn = async (probe: () => Promise<boolean>) =>
    (await timeUntil(probe, CATCH_UP_LIMIT_MS)) === null ? null : Date.now() - to;
  const disabledOnB = await sinceReturn(async () => !(await servedOnB()));
  const deletedOnB = await sinceReturn(
    async () => (await sessionStatus(b, sessionId, version)) === 404,
  );
  const stored = await api<{ enabled: boolean }>(
    a.baseUrl,
    a.token,
    'GET',
    `/api/v1/tools/${disabledToolId}`,
  ).then(
    (tool) => (tool.enabled ? 'not stored' : 'stored'),
    (error: Error) => `unknown (${error.message.slice(0, 60)})`,
  );
  await Promise.all(loads.map((load) => load.stop()));
  const end = Date.now();

  const during = summarize(loads.flatMap((load) => within(load.samples, from, to)));
  const after = summarize(loads.flatMap((load) => within(load.samples, to, end)));
  const overall = summarize(loads.flatMap((load) => load.samples));
  const deaths = [a.death(), b.death()].filter((death) => death !== null);
  const figures = [
    `before: tool served on B ${servedBefore === null ? 'never' : 'yes'}, session known to B ${knownOnB}`,
    `calls during: ${calls(during)}`,
    `after: ${calls(after)}`,
    `PATCH ${disabledTool} disabled on A: ${timed(disabling)}, ${stored}`,
    `B stops serving it ${disabledOnB === null ? `not within ${ms(CATCH_UP_LIMIT_MS)}` : `${ms(disabledOnB)}`} after Redis returns`,
    `session DELETE on A: ${timed(deleting)}; B answers it 404 ${deletedOnB === null ? `not within ${ms(CATCH_UP_LIMIT_MS)}` : `${ms(deletedOnB)}`} after`,
    deaths.length ? `replica ${deaths.join('; ')}` : 'both replicas alive',
  ];
  const checks: Check[] = [
    [deaths.length === 0, `replica ${deaths.join('; ')}`],
    [overall.failed === 0, `${overall.failed} calls failed`],
    [overall.hung === 0, `${overall.hung} calls hung past ${HANG_MS / 1000} s`],
    [
      disabling.status >= 200 && disabling.status < 300 && disabling.ms <= WRITE_PASS_MS,
      `tool PATCH answered ${timed(disabling)} (want 2xx within ${WRITE_PASS_MS / 1000} s)`,
    ],
    [stored === 'stored', `the PATCH was ${stored}`],
    [
      disabledOnB !== null && disabledOnB <= CATCH_UP_PASS_MS,
      `replica B still served the disabled tool ${ms(disabledOnB ?? CATCH_UP_LIMIT_MS)} after Redis returned`,
    ],
    [
      deleting.status >= 200 && deleting.status < 300 && deleting.ms <= WRITE_PASS_MS,
      `session DELETE answered ${timed(deleting)}`,
    ],
    [
      deletedOnB !== null && deletedOnB <= CATCH_UP_PASS_MS,
      `replica B still served the deleted session ${ms(deletedOnB ?? CATCH_UP_LIMIT_MS)} after Redis returned`,
    ],
  ];
  return row(
    label,
    `Redis ${mode === 'refuse' ? 'refused' : 'partitioned (black-holed)'} ${config.redisOutageSeconds} s, two replicas`,
    `${describeLoad(config)}, half on each replica, under a global rate limit (counted in Redis); a tool PATCH and a session DELETE on A 2 s in`,
    figures,
    checks,
  );
}

export const redisOutages: Scenario = {
  id: 5,
  title: TITLE,
  budgetMs: (config: ChaosConfig) => 2 * (config.redisOutageSeconds * 1000 + 60_000) + 120_000,
  run: async (context) => {
    const { config, scope } = context;
    if (!(await redisAnswers(config.redisUrl)))
      return [skipped('5', TITLE, `Redis does not answer at ${config.redisUrl}`)];
    const target = new URL(config.redisUrl);
    const proxy = await new FaultProxy(target.hostname, Number(target.port || 6379)).start();
    scope.defer('Redis proxy', () => proxy.close());
    const database = await scenarioDatabase(config, scope);
    const deployment = newDeployment();
    const env = {
      REDIS_URL: through(config.redisUrl, proxy.port),
      REDIS_NAMESPACE: `chaos-${randomBytes(4).toString('hex')}`,
    };
    step(`database ${database.name}; starting replicas A and B`);
    const a = await startChaosPortico(config, scope, database.url, env, deployment);
    const b = await startChaosPortico(config, scope, database.url, env, deployment);
    await gateway(context, a, 'alpha');
    await api(a.baseUrl, a.token, 'POST', '/api/v1/rate-limits', {
      per: 'token',
      points: 1_000_000,
      windowSeconds: 60,
    });
    const disabledTool = 'alpha-tool_2';
    const disabledToolId = await toolId(a, disabledTool);
    const probe = await openSession(b.mcpUrl, b.token, 10_000);
    scope.defer('probe session', () => closeSession(probe));
    const servedOnB = async () => {
      const result = await probe
        .callTool({ name: disabledTool, arguments: {} }, undefined, { timeout: 5000 })
        .catch(() => ({ isError: true }));
      return !result.isError;
    };
    const stage = { a, b, proxy, disabledTool, disabledToolId, servedOnB };
    return [
      await redisOutage(context, '5a', 'refuse', stage),
      await redisOutage(context, '5b', 'blackhole', stage),
    ];
  },
};
