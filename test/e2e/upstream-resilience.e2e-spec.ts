import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { UPSTREAM_UNAVAILABLE } from '../../src/mcp/protocol/mcp-errors';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { writeEndlessly } from '../fixtures/endless-body';
import { startTarpit, type Tarpit } from '../fixtures/tarpit';
import { echoTool, startUpstream, UpstreamFixture } from '../fixtures/upstream-server';
import { loginAgent } from '../support/admin-browser-session';
import { factories } from '../support/factories';
import { textOf } from '../support/html-text';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 3000;
/** Long enough that checks made right after the breaker opens all fall inside its cool-down. */
const COOLDOWN_MS = 8000;
const MAX_CONCURRENT = 2;
/** UPSTREAM_MESSAGE_LIMIT_BYTES here. */
const LIMIT_BYTES = 1024 * 1024;
/**
 * What "at once" allows: less than one upstream timeout, so that nothing waited for an upstream
 * (or in a queue behind one), with room for a machine that runs two test runs on two cores.
 */
const AT_ONCE_MS = TIMEOUT_MS;

/** What a call ended with: its result, or the JSON-RPC error, and how long it took. */
async function timed(
  call: () => Promise<unknown>,
): Promise<{ ms: number; result?: unknown; error?: McpError }> {
  const started = Date.now();
  try {
    const result = await call();
    return { ms: Date.now() - started, result };
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { ms: Date.now() - started, error };
  }
}

describe('upstreams that are down, hanging or slow', () => {
  let t: TestApp;
  let client: Client;
  let tarpit: Tarpit;
  let healthy: UpstreamFixture;
  let tarpitGatewayId: string;

  const call = (name: string) => timed(() => client.callTool({ name, arguments: {} }));

  /** Calls `tool` until its breaker refuses (a bounded number of times); the refusal. */
  async function untilOpen(tool: string): Promise<McpError> {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const { error } = await call(tool);
      if (error?.message.includes('circuit breaker is open')) return error;
    }
    throw new Error(`The breaker of ${tool} never opened`);
  }

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
        UPSTREAM_BREAKER_FAILURES: '2',
        UPSTREAM_BREAKER_FIRST_COOLDOWN_MS: String(COOLDOWN_MS),
        UPSTREAM_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
        UPSTREAM_MAX_CONCURRENT: String(MAX_CONCURRENT),
        UPSTREAM_QUEUE: '1',
        UPSTREAM_QUEUE_TIMEOUT_MS: '8000',
        UPSTREAM_RETRY_BACKOFF_MS: '10',
        UPSTREAM_MESSAGE_LIMIT_BYTES: String(LIMIT_BYTES),
      },
    });
    const make = factories(t.app);
    tarpit = await startTarpit();
    healthy = await startUpstream({ name: 'healthy', tools: [echoTool('ok', 'healthy')] });
    const tarpitGateway = await make.gateway({ name: 'Tarpit', url: tarpit.url });
    tarpitGatewayId = tarpitGateway.id;
    await make.tools(tarpitGateway, ['hang']);
    await make.tools(await make.gateway({ name: 'Healthy', url: healthy.url }), ['ok']);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await tarpit?.close();
    await healthy?.close();
  });

  it('caps the sockets a tarpit holds, and once its breaker opens fails its calls at once while the healthy upstream and tools/list stay fast', async () => {
    // A burst at the hung upstream from sessions of their own (each connects afresh): the cap and
    // the queue take three, the rest are refused at once, and it never holds more sockets.
    const clients = await Promise.all(
      Array.from({ length: 6 }, () => connectClient(t.baseUrl, { token: t.token })),
    );
    try {
      const burst = Promise.all(
        clients.map((each) => timed(() => each.callTool({ name: 'tarpit-hang', arguments: {} }))),
      );
      await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS / 2));
      expect(tarpit.held).toBeLessThanOrEqual(MAX_CONCURRENT);
      const outcomes = await burst;
      expect(
        outcomes.every(
          ({ error }) => error?.code === UPSTREAM_UNAVAILABLE || error?.code === -32001,
        ),
      ).toBe(true);
      expect(
        outcomes.filter(({ error }) => /2 calls are running and 1 waiting/.test(error!.message))
          .length,
      ).toBeGreaterThanOrEqual(1);
    } finally {
      await Promise.all(clients.map((each) => each.close()));
    }

    await untilOpen('tarpit-hang');
    for (let round = 0; round < 5; round++) {
      const refused = await call('tarpit-hang');
      expect(refused.ms).toBeLessThan(AT_ONCE_MS);
      expect(refused.error?.code).toBe(UPSTREAM_UNAVAILABLE);
      expect(refused.error?.message).toMatch(
        /Upstream 'tarpit' is unavailable: its circuit breaker is open after \d+ failures in a row \(last: no answer within 3000 ms\), so calls fail at once until it is tried again at \d{4}-\d\d-\d\dT/,
      );
      expect(refused.error?.data).toMatchObject({
        gateway: 'tarpit',
        reason: 'circuit-open',
        retryAt: expect.stringMatching(/Z$/),
        retryAfterSeconds: expect.any(Number),
      });
      const ok = await call('healthy-ok');
      expect(ok.ms).toBeLessThan(AT_ONCE_MS);
      expect(ok.result).toMatchObject({ structuredContent: { upstream: 'healthy' } });
      const listed = await timed(() => client.listTools());
      expect(listed.ms).toBeLessThan(AT_ONCE_MS);
      expect(listed.result).toMatchObject({
        tools: expect.arrayContaining([
          expect.objectContaining({ name: 'tarpit-hang' }),
          expect.objectContaining({ name: 'healthy-ok' }),
        ]),
      });
    }
    expect(tarpit.held).toBeLessThanOrEqual(MAX_CONCURRENT);

    const hang = (await t.api().get('/api/v1/tools/by-name/tarpit-hang').expect(200)).body as {
      id: string;
    };
    const invokeStarted = Date.now();
    const invoked = await t.api().post(`/api/v1/tools/${hang.id}/invoke`).send({ arguments: {} });
    expect(Date.now() - invokeStarted).toBeLessThan(AT_ONCE_MS);
    expect(invoked.status).toBe(503);
    expect(Number(invoked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(invoked.body).toMatchObject({
      code: 'tool.upstream_refused',
      detail: expect.stringMatching(/circuit breaker is open/),
    });

    const gateway = (await t.api().get(`/api/v1/gateways/${tarpitGatewayId}`).expect(200)).body;
    expect(gateway.circuit).toEqual({
      state: 'open',
      failures: expect.any(Number),
      retryAt: expect.stringMatching(/Z$/),
      lastFailure: `no answer within ${TIMEOUT_MS} ms`,
    });
    expect(gateway.circuit.failures).toBeGreaterThanOrEqual(2);
    expect(gateway.load).toEqual({ inFlight: expect.any(Number), queued: 0 });

    const metrics = (await t.api().get('/metrics').expect(200)).text;
    expect(metrics).toContain('portico_upstream_circuit_state{gateway="tarpit",state="open"} 1');
    expect(metrics).toContain('portico_upstream_circuit_state{gateway="healthy",state="closed"} 1');
    const rejected =
      /portico_upstream_rejected_calls_total\{gateway="tarpit",reason="circuit-open"\} (\d+)/.exec(
        metrics,
      );
    expect(Number(rejected?.[1])).toBeGreaterThanOrEqual(5);
    expect(metrics).toMatch(
      /portico_upstream_rejected_calls_total\{gateway="tarpit",reason="queue-full"\} [1-9]/,
    );

    const { agent } = await loginAgent(t.baseUrl);
    const page = textOf((await agent.get(`/admin/gateways/${tarpitGatewayId}`).expect(200)).text);
    expect(page).toMatch(/Circuit breaker\s*Open after \d+ failures in a row: calls fail at once/);
  });

  it('lets a trial call through after the cool-down, and closes once the upstream answers again', async () => {
    const { port } = tarpit;
    await tarpit.close();
    const revived = await new UpstreamFixture({
      name: 'revived',
      tools: [echoTool('hang', 'revived')],
    }).start(port);
    try {
      const answered = await waitFor(
        async () => (await call('tarpit-hang')).result,
        'the revived upstream to answer',
        COOLDOWN_MS + 3 * TIMEOUT_MS,
        200,
      );
      expect(answered).toMatchObject({ structuredContent: { upstream: 'revived' } });
      const gateway = (await t.api().get(`/api/v1/gateways/${tarpitGatewayId}`).expect(200)).body;
      expect(gateway.circuit).toEqual({
        state: 'closed',
        failures: 0,
        retryAt: null,
        lastFailure: null,
      });
      const metrics = (await t.api().get('/metrics').expect(200)).text;
      expect(metrics).toContain(
        'portico_upstream_circuit_state{gateway="tarpit",state="closed"} 1',
      );
    } finally {
      await revived.close();
    }
  });

  it('fails the calls of a killed upstream fast, and serves them again once it is restarted', async () => {
    const phoenix = await startUpstream({ name: 'phoenix', tools: [echoTool('ok', 'phoenix')] });
    const port = Number(new URL(phoenix.url).port);
    await factories(t.app).tools(
      await factories(t.app).gateway({ name: 'Phoenix', url: phoenix.url }),
      ['ok'],
    );
    expect((await call('phoenix-ok')).result).toMatchObject({
      structuredContent: { upstream: 'phoenix' },
    });
    await phoenix.crash();
    for (let round = 0; round < 4; round++) {
      const failed = await call('phoenix-ok');
      expect(failed.ms).toBeLessThan(AT_ONCE_MS);
      expect(failed.error?.code).toBe(UPSTREAM_UNAVAILABLE);
      expect(failed.error?.message).toMatch(/^MCP error -32010: Upstream 'phoenix' is unavailable/);
    }
    const restarted = await new UpstreamFixture({
      name: 'phoenix',
      tools: [echoTool('ok', 'phoenix again')],
    }).start(port);
    try {
      const answered = await waitFor(
        async () => (await call('phoenix-ok')).result,
        'the restarted upstream to answer',
        COOLDOWN_MS + 3 * TIMEOUT_MS,
        200,
      );
      expect(answered).toMatchObject({ structuredContent: { upstream: 'phoenix again' } });
    } finally {
      await restarted.close();
    }
  });

  it('runs at most UPSTREAM_MAX_CONCURRENT calls to one upstream and refuses past its queue', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = await startUpstream({
      name: 'gated',
      tools: [
        {
          definition: { name: 'wait', inputSchema: { type: 'object' } },
          handler: async () => {
            await gate;
            return { content: [{ type: 'text', text: 'through' }] };
          },
        },
      ],
    });
    try {
      const { id: gatewayId } = await factories(t.app).gateway({ name: 'Gated', url: gated.url });
      await factories(t.app).tools(await factories(t.app).gatewayById(gatewayId), ['wait']);
      const calls = Array.from({ length: 4 }, () => call('gated-wait'));
      const refused = await Promise.race(calls.map(async (pending) => (await pending).error));
      expect(refused?.code).toBe(UPSTREAM_UNAVAILABLE);
      expect(refused?.message).toMatch(
        /Upstream 'gated' is unavailable: 2 calls are running and 1 waiting, the most allowed \(UPSTREAM_MAX_CONCURRENT 2, UPSTREAM_QUEUE 1\); the call was not sent/,
      );
      expect(refused?.data).toMatchObject({ gateway: 'gated', reason: 'queue-full' });
      await waitFor(() => gated.calls.length === MAX_CONCURRENT, 'two calls to reach the upstream');
      const gateway = (await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200)).body;
      expect(gateway.load).toEqual({ inFlight: 2, queued: 1 });
      expect(gated.calls).toHaveLength(MAX_CONCURRENT);
      open();
      const settled = await Promise.all(calls);
      expect(settled.filter(({ result }) => result !== undefined)).toHaveLength(3);
      expect(gated.calls).toHaveLength(3);
    } finally {
      open();
      await gated.close();
    }
  });

  it('gives up on an HTTP+SSE upstream that accepts its stream and never answers', async () => {
    const silent = await startTarpit();
    try {
      await factories(t.app).tools(
        await factories(t.app).gateway({ name: 'Silent', url: silent.url, transport: 'sse' }),
        ['hang'],
      );
      const failed = await call('silent-hang');
      expect(failed.error?.message).toMatch(/Upstream 'silent'/);
      expect(failed.ms).toBeLessThan(TIMEOUT_MS + 2000);
    } finally {
      await silent.close();
    }
  });

  it('reads each event of an HTTP+SSE upstream only to the message limit', async () => {
    const flood = await startEndlessEvent();
    try {
      await factories(t.app).tools(
        await factories(t.app).gateway({ name: 'Flood', url: flood.url, transport: 'sse' }),
        ['big'],
      );
      const before = process.memoryUsage().rss;
      const failed = await call('flood-big');
      expect(failed.error?.message).toMatch(
        /Upstream 'flood' answered with a message Portico cannot use: the upstream sent an event larger than 1048576 bytes/,
      );
      expect(failed.ms).toBeLessThan(TIMEOUT_MS);
      // Read without a bound, the event would have taken gigabytes by now.
      expect(flood.sent()).toBeGreaterThan(LIMIT_BYTES);
      expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
      expect((await call('healthy-ok')).result).toBeDefined();
    } finally {
      await flood.close();
    }
  });
});

/**
 * An HTTP+SSE upstream whose stream names its message endpoint, then sends one event that never
 * ends, as fast as it is read; `sent` counts its bytes.
 */
async function startEndlessEvent(): Promise<{
  url: string;
  sent(): number;
  close(): Promise<void>;
}> {
  let sent = 0;
  const server = createServer((request, response) => {
    if (request.method === 'POST') {
      request.resume();
      response.writeHead(202).end('Accepted');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('event: endpoint\ndata: /messages\n\ndata: ');
    writeEndlessly(response, undefined, (bytes) => (sent += bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`,
    sent: () => sent,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
