import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { onPostgres } from '../support/test-database';
import { connectClient, eventually, postMcp, rpcError } from '../support/mcp-client';
import { FaultProxy } from '../support/fault-proxy';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { serverToken } from '../support/tokens';

const redisUrl = process.env.REDIS_URL;

/** Two replicas need PostgreSQL, and the outage a Redis server (REDIS_URL), as in CI. */
const describeOnRedis = onPostgres && redisUrl ? describe : describe.skip;

async function timed<T>(work: PromiseLike<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await work;
  return { value, ms: Date.now() - start };
}

/** One series of a replica's /metrics, 0 when absent. */
async function metric(t: TestApp, series: string): Promise<number> {
  const metrics = await request(t.baseUrl)
    .get('/metrics')
    .set('Authorization', `Bearer ${t.token}`)
    .expect(200);
  const line = metrics.text.split('\n').find((row) => row.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describeOnRedis('two replicas while Redis is away from one of them', () => {
  let a: TestApp;
  let b: TestApp;
  let proxy: FaultProxy;
  let upstream: UpstreamFixture;
  const open: Client[] = [];

  beforeAll(async () => {
    const namespace = `test-${randomUUID()}`;
    proxy = await FaultProxy.before(redisUrl!);
    // A reaches Redis through the proxy the test switches; B always reaches it.
    a = await startTestApp({
      env: { REDIS_URL: proxy.proxied(redisUrl!), REDIS_NAMESPACE: namespace },
    });
    b = await startReplica(a, { REDIS_URL: redisUrl!, REDIS_NAMESPACE: namespace });
    upstream = await startUpstream({
      name: 'up',
      tools: [echoTool('first', 'up'), echoTool('second', 'up')],
    });
    await a.api().post('/api/v1/gateways').send({ name: 'Shared', url: upstream.url }).expect(201);
  });

  afterEach(async () => {
    await proxy.setMode('pass');
  });

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await b.close();
    await a.close();
    await upstream.close();
    await proxy.close();
  });

  it('answers a tool PATCH as stored while Redis refuses, and B stops serving the tool once it is back', async () => {
    const onB = await connectClient(b.baseUrl, { token: b.token });
    open.push(onB);
    expect(await names(onB)).toContain('shared-first');
    const tools = await a.api().get('/api/v1/tools').expect(200);
    const first = (tools.body.items as { id: string; originalName: string }[]).find(
      (tool) => tool.originalName === 'first',
    )!;

    await proxy.setMode('refuse');
    const patched = await timed(
      a.api().patch(`/api/v1/tools/${first.id}`).send({ enabled: false }),
    );
    expect(patched.value.status).toBe(200);
    expect(patched.value.body.enabled).toBe(false);
    expect(patched.ms).toBeLessThan(3000);
    const onA = await connectClient(a.baseUrl, { token: a.token });
    open.push(onA);
    expect(await names(onA)).not.toContain('shared-first');
    expect(await metric(a, 'portico_event_bus_listening')).toBe(0);
    expect(await metric(a, 'portico_event_bus_queued_events')).toBeGreaterThan(0);

    await proxy.setMode('pass');
    // A's queued event reaches B, which hears Redis throughout and so has nothing else to go by.
    await eventually(async () => expect(await names(onB)).not.toContain('shared-first'), 15_000);
    expect(await names(onB)).toContain('shared-second');
    await eventually(async () => expect(await metric(a, 'portico_event_bus_listening')).toBe(1));
    expect(await metric(a, 'portico_event_bus_queued_events')).toBe(0);
    expect(await metric(a, 'portico_event_bus_resyncs_total')).toBeGreaterThan(0);
  });

  it('answers a session DELETE at once while Redis drops packets, and B stops serving that session once it is back', async () => {
    const client = await connectClient(a.baseUrl, { token: a.token });
    const sessionId = (client.transport as { sessionId?: string }).sessionId!;
    const ping = () =>
      postMcp(
        `${b.baseUrl}/mcp`,
        b.token,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'Mcp-Session-Id': sessionId },
      );
    expect((await ping()).status).toBe(200);

    await proxy.setMode('blackhole');
    const ended = await timed(
      (client.transport as StreamableHTTPClientTransport).terminateSession(),
    );
    expect(ended.ms).toBeLessThan(5000);
    await client.close();

    await proxy.setMode('pass');
    await eventually(async () => expect((await ping()).status).toBe(404), 15_000);
  });
});

describeOnRedis('rate limits while Redis is away', () => {
  let a: TestApp;
  let closed: TestApp;
  let proxy: FaultProxy;
  let upstream: UpstreamFixture;
  let serverId: string;
  const open: Client[] = [];

  beforeAll(async () => {
    const namespace = `test-${randomUUID()}`;
    proxy = await FaultProxy.before(redisUrl!);
    const env = { REDIS_URL: proxy.proxied(redisUrl!), REDIS_NAMESPACE: namespace };
    a = await startTestApp({ env });
    closed = await startReplica(a, { ...env, RATE_LIMIT_FAIL_CLOSED: 'true' });
    upstream = await startUpstream({ name: 'meter', tools: [echoTool('ping', 'meter')] });
    await a.api().post('/api/v1/gateways').send({ name: 'Meter', url: upstream.url }).expect(201);
    const tools = await a.api().get('/api/v1/tools').expect(200);
    serverId = (
      await a
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Metered', toolIds: (tools.body.items as { id: string }[]).map((t) => t.id) })
        .expect(201)
    ).body.id as string;
    await a
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'token', serverId, points: 2, windowSeconds: 60 })
      .expect(201);
  });

  afterEach(async () => {
    await proxy.setMode('pass');
  });

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await closed.close();
    await a.close();
    await upstream.close();
    await proxy.close();
  });

  async function client(t: TestApp): Promise<Client> {
    const connected = await connectClient(t.baseUrl, {
      token: await serverToken(a, serverId),
      path: `/servers/${serverId}/mcp`,
    });
    open.push(connected);
    return connected;
  }

  const fallbacks = (t: TestApp, outcome: string) =>
    metric(t, `portico_rate_limit_fallbacks_total{outcome="${outcome}"}`);

  it('counts per replica while Redis refuses, without waiting, and refuses past the limit', async () => {
    const onA = await client(a);
    await proxy.setMode('refuse');
    for (let i = 0; i < 2; i++) {
      const call = await timed(onA.callTool({ name: 'meter-ping', arguments: {} }));
      expect(call.value.isError).toBeFalsy();
      expect(call.ms).toBeLessThan(2000);
    }
    const refused = await timed(rpcError(onA.callTool({ name: 'meter-ping', arguments: {} })));
    expect(refused.value.code).toBe(-32014);
    expect(refused.ms).toBeLessThan(2000);
    expect(await fallbacks(a, 'counted')).toBe(3);
  });

  it('is answered within its bound while Redis drops packets', async () => {
    const onA = await client(a);
    // Counted in Redis again first: the counters are retried two seconds after a failure.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const counted = await fallbacks(a, 'counted');
    await onA.callTool({ name: 'meter-ping', arguments: {} });
    expect(await fallbacks(a, 'counted')).toBe(counted);
    await proxy.setMode('blackhole');
    const before = await fallbacks(a, 'counted');
    const call = await timed(onA.callTool({ name: 'meter-ping', arguments: {} }));
    expect(call.value.isError).toBeFalsy();
    expect(call.ms).toBeLessThan(3000);
    expect(await fallbacks(a, 'counted')).toBe(before + 1);
  });

  it('refuses calls under a limit with RATE_LIMIT_FAIL_CLOSED while Redis is away', async () => {
    const onClosed = await client(closed);
    await proxy.setMode('refuse');
    const refused = await rpcError(onClosed.callTool({ name: 'meter-ping', arguments: {} }));
    expect(refused.message).toContain('Rate limits cannot be checked right now');
    expect(await fallbacks(closed, 'refused')).toBe(1);
    await proxy.setMode('pass');
    await eventually(
      async () =>
        expect(
          (await onClosed.callTool({ name: 'meter-ping', arguments: {} })).isError,
        ).toBeFalsy(),
      10_000,
      500,
    );
  });
});
