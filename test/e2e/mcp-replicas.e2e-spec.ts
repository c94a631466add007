import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { EventBus, type PorticoEvent } from '../../src/events/event-bus';
import { proxyTools } from '../fixtures/proxy-tools';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { eventually, postMcp } from '../support/mcp-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { describeOnPostgres } from '../support/describe-on-postgres';

type Route = (method: string, index: number, body: string) => 'a' | 'b';

/** What a POSTed JSON-RPC message is: its method, or `response` for an answer to the server. */
function kindOf(body: string): string {
  if (body === '') return '';
  const message = JSON.parse(body) as { method?: string };
  return message.method ?? 'response';
}

/**
 * A client behind a load balancer with no sticky sessions: `route` picks the replica for each
 * HTTP request (POSTs and the GET stream alike). `hits` records `<method>:<replica>`, and
 * `messages` `<replica>:<what was POSTed>`.
 */
async function balancedClient(
  a: TestApp,
  b: TestApp,
  route: Route,
): Promise<{ client: Client; hits: string[]; messages: string[] }> {
  const hits: string[] = [];
  const messages: string[] = [];
  let index = 0;
  const fetchVia = (input: string | URL | Request, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? init.body : '';
    const target = route(method, index++, body) === 'a' ? a : b;
    hits.push(`${method}:${target === a ? 'a' : 'b'}`);
    if (method === 'POST') messages.push(`${target === a ? 'a' : 'b'}:${kindOf(body)}`);
    const url = new URL(String(input instanceof Request ? input.url : input));
    return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
  };
  const client = new McpClient(
    { name: 'balanced', version: '1' },
    { capabilities: { sampling: {} } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', a.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${a.token}` } },
      fetch: fetchVia,
    }),
  );
  return { client, hits, messages };
}

const alternate: Route = (_method, index) => (index % 2 === 0 ? 'a' : 'b');
const streamOnB: Route = (method) => (method === 'GET' ? 'b' : 'a');

const buses = [
  ['PostgreSQL LISTEN/NOTIFY', {}] as const,
  ...(process.env.REDIS_URL
    ? [['Redis pub/sub', { REDIS_URL: process.env.REDIS_URL }] as const]
    : []),
];

describeOnPostgres.each(buses)('two replicas on one database (%s)', (_bus, env) => {
  let a: TestApp;
  let b: TestApp;
  let upstream: UpstreamFixture;
  const open: Client[] = [];

  beforeAll(async () => {
    a = await startTestApp({ env });
    b = await startReplica(a, env);
    upstream = await startUpstream({
      name: 'up',
      tools: [...proxyTools('up'), echoTool('first', 'up')],
    });
    await a.api().post('/api/v1/gateways').send({ name: 'Shared', url: upstream.url }).expect(201);
  });

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await b.close();
    await a.close();
    await upstream.close();
  });

  it('serves one session from both replicas, request by request', async () => {
    const { client, hits } = await balancedClient(a, b, alternate);
    open.push(client);
    const progress: Progress[] = [];
    for (let i = 0; i < 3; i++) {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shared-first');
      await expect(
        client.callTool({ name: 'shared-first', arguments: { i } }),
      ).resolves.toMatchObject({ structuredContent: { args: { i } } });
    }
    await client.callTool({ name: 'shared-progress', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
    expect(hits.filter((hit) => hit.startsWith('POST:a')).length).toBeGreaterThan(1);
    expect(hits.filter((hit) => hit.startsWith('POST:b')).length).toBeGreaterThan(1);
  });

  it('routes a sampling answer back to the replica that is waiting for it', async () => {
    // The call goes to A; the client's answer to the sampling request goes to B.
    const { client, messages } = await balancedClient(a, b, (_method, _index, body) =>
      kindOf(body) === 'response' ? 'b' : 'a',
    );
    open.push(client);
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'across replicas' },
    }));
    await client.listTools();
    const result = await client.callTool({ name: 'shared-sample', arguments: { prompt: 'x' } });
    expect(result.content).toEqual([{ type: 'text', text: 'up sampled: across replicas' }]);
    expect(messages).toContain('a:tools/call');
    expect(messages).toContain('b:response');
    expect(messages).not.toContain('a:response');
  });

  it('applies a log level set through one replica to calls the other serves', async () => {
    // logging/setLevel goes to A, everything else to B, whose runtime and upstream session exist
    // before the level is set.
    const { client, messages } = await balancedClient(a, b, (_method, _index, body) =>
      kindOf(body) === 'logging/setLevel' ? 'a' : 'b',
    );
    open.push(client);
    const levels: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      levels.push(notification.params.level);
    });
    await client.callTool({ name: 'shared-log', arguments: {} });
    expect(levels).toEqual(['debug', 'warning']);
    await client.setLoggingLevel('warning');
    expect(messages).toContain('a:logging/setLevel');
    await eventually(async () => {
      levels.length = 0;
      await client.callTool({ name: 'shared-log', arguments: {} });
      expect(levels).toEqual(['warning']);
    });
    expect(messages.filter((message) => message === 'b:tools/call').length).toBeGreaterThan(1);
  });

  it('tells a client streaming from B that a sync on A changed its list', async () => {
    const { client, hits } = await balancedClient(a, b, streamOnB);
    open.push(client);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    await client.listTools();
    await eventually(() => expect(hits).toContain('GET:b'));
    const gatewayId = (await a.api().get('/api/v1/gateways').expect(200)).body.items[0].id;
    // Keep changing until the stream is surely open, then check the tool arrived.
    let added = 0;
    await eventually(
      async () => {
        upstream.setTool(echoTool(`added_${++added}`, 'up'));
        await a.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
        expect(changes).toBeGreaterThan(0);
      },
      15_000,
      500,
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(
      `shared-added_${added}`,
    );
  });

  it('ends a session on every replica', async () => {
    const { client } = await balancedClient(a, b, () => 'a');
    await client.listTools();
    const sessionId = (client.transport as { sessionId?: string }).sessionId!;
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await eventually(async () => {
      const response = await postMcp(
        `${b.baseUrl}/mcp`,
        b.token,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'Mcp-Session-Id': sessionId },
      );
      expect(response.status).toBe(404);
    });
    await client.close();
  });

  it('hears its own event at once and once, and the other replica hears it once', async () => {
    const heard = (app: TestApp) => {
      const events: PorticoEvent[] = [];
      app.app.get(EventBus).subscribe((event) => events.push(event));
      return events;
    };
    const onA = heard(a);
    const onB = heard(b);
    const event: PorticoEvent = { type: 'servers.changed', serverIds: ['a-server'] };
    const published = a.app.get(EventBus).publish(event);
    // Before the channel could echo it: what a request changed, the next one on A reads.
    expect(onA).toEqual([event]);
    await published;
    await eventually(async () => expect(onB).toEqual([event]));
    // A large event goes through the relay table on PostgreSQL; every replica reads it once too.
    const large: PorticoEvent = {
      type: 'servers.changed',
      serverIds: Array(400).fill('x'.repeat(36)),
    };
    await b.app.get(EventBus).publish(large);
    await eventually(async () => expect(onA).toEqual([event, large]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(onA).toEqual([event, large]);
    expect(onB).toEqual([event, large]);
  });

  it('drops its caches when the bus reconnects, as events may have been lost meanwhile', async () => {
    const { client } = await balancedClient(a, b, () => 'b');
    const { client: doomed } = await balancedClient(a, b, () => 'b');
    open.push(client, doomed);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shared-first');
    await doomed.listTools();
    // Changes whose events B never hears: written straight to the database.
    const database = a.app.get(DataSource);
    await database.query(`UPDATE tool SET enabled = false WHERE original_name = 'first'`);
    await database.query('DELETE FROM mcp_session WHERE id = $1', [
      (doomed.transport as { sessionId?: string }).sessionId,
    ]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shared-first');
    // Cut every replica's bus connection; each one reconnects on its own.
    const redisUrl = 'REDIS_URL' in env ? env.REDIS_URL : null;
    if (redisUrl) {
      const redis = new Redis(redisUrl);
      await redis.client('KILL', 'TYPE', 'pubsub');
      redis.disconnect();
    } else {
      await database.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND query = 'LISTEN portico_events'`,
      );
    }
    await eventually(async () =>
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain(
        'shared-first',
      ),
    );
    await expect(doomed.listTools()).rejects.toMatchObject({ code: 404 });
  });
});
