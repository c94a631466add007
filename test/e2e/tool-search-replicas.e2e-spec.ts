import {
  Client as ModernClient,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, eventually } from '../support/mcp-client';
import { MODERN } from '../support/modern-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describeOnPostgres('deferred tool search across two replicas on one PostgreSQL', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  let upstream: UpstreamFixture;
  let path: string;
  const clients: Client[] = [];
  const modernClients: ModernClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Replicas share their secrets, so that a token from one is good on the other.
    const env = { JWT_SECRET: 'replica-secret-'.repeat(4), ENCRYPTION_KEY: 'ab'.repeat(32) };
    first = await startTestApp({ database, env });
    second = await startTestApp({ database, env });
    upstream = await startUpstream({
      name: 'shared',
      tools: Array.from({ length: 40 }, (_, i) => echoTool(`task_${i}`, 'shared')),
    });
    const gateway = await first
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Shared', url: upstream.url })
      .expect(201);
    const tools = await first
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId: gateway.body.id, limit: 100 })
      .expect(200);
    const server = await first
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'Shared server',
        toolIds: tools.body.items.map((tool: { id: string }) => tool.id),
        toolSearch: { enabled: true, alwaysLoaded: [] },
      })
      .expect(201);
    path = `/servers/${server.body.id}/mcp`;
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(modernClients.map((client) => client.close()));
    await second?.close();
    await first?.close();
    await upstream?.close();
    await database?.drop();
  });

  /** A client of `replica`; with `sessionId`, it joins that session instead of opening one. */
  async function client(replica: TestApp, sessionId?: string) {
    const connected = await connectClient(replica.baseUrl, {
      token: first.token,
      path,
      ...(sessionId ? { sessionId } : {}),
    });
    clients.push(connected);
    let listChanged = 0;
    connected.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    return { client: connected, listChanged: () => listChanged };
  }

  /** A 2026-07-28 client of `replica`: no session, its promotions are its principal's. */
  async function modern(replica: TestApp): Promise<ModernClient> {
    const connected = new ModernClient(
      { name: 'modern-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await connected.connect(
      new StreamableHTTPClientTransport(new URL(path, replica.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${first.token}` } },
      }),
    );
    modernClients.push(connected);
    return connected;
  }

  it('keeps a promotion made on one replica when the session moves to another', async () => {
    const { client: onFirst } = await client(first);
    const sessionId = (onFirst.transport as { sessionId?: string }).sessionId!;
    expect(names((await onFirst.listTools()).tools)).toEqual(['tool_search']);
    await onFirst.callTool({ name: 'tool_search', arguments: { query: 'select:shared-task_7' } });

    const { client: onSecond } = await client(second, sessionId);
    expect(names((await onSecond.listTools()).tools)).toEqual(['tool_search', 'shared-task_7']);
    const call = await onSecond.callTool({ name: 'shared-task_7', arguments: {} });
    expect(call.structuredContent).toMatchObject({ upstream: 'shared', tool: 'task_7' });
  });

  it('sees at once, on a replica that has the session cached, a promotion made on the other', async () => {
    const { client: onFirst } = await client(first);
    const sessionId = (onFirst.transport as { sessionId?: string }).sessionId!;
    expect(names((await onFirst.listTools()).tools)).toEqual(['tool_search']);
    expect(await onFirst.callTool({ name: 'shared-task_3', arguments: {} })).toMatchObject({
      isError: true,
    });

    // The second replica has no GET stream of this session: the search's own response carries
    // the list_changed.
    const { client: onSecond, listChanged } = await client(second, sessionId);
    await onSecond.callTool({ name: 'tool_search', arguments: { query: '+task_3', limit: 1 } });
    await eventually(() => expect(listChanged()).toBe(1));

    expect(names((await onFirst.listTools()).tools)).toEqual(['tool_search', 'shared-task_3']);
    const call = await onFirst.callTool({ name: 'shared-task_3', arguments: {} });
    expect(call.structuredContent).toMatchObject({ tool: 'task_3' });
  });

  it('merges searches of one session made on both replicas at once', async () => {
    const { client: onFirst } = await client(first);
    const sessionId = (onFirst.transport as { sessionId?: string }).sessionId!;
    const { client: onSecond } = await client(second, sessionId);
    const wanted = Array.from({ length: 10 }, (_, i) => `shared-task_${20 + i}`);
    await Promise.all(
      wanted.map((name, i) =>
        (i % 2 === 0 ? onFirst : onSecond).callTool({
          name: 'tool_search',
          arguments: { query: `select:${name}` },
        }),
      ),
    );
    const listed = names((await onSecond.listTools()).tools);
    expect(listed).toEqual(['tool_search', ...wanted.sort()]);
  });

  it("keeps a modern client's promotion for its principal on both replicas, apart from sessions", async () => {
    const onFirst = await modern(first);
    const onSecond = await modern(second);
    expect(names((await onSecond.listTools()).tools)).toEqual(['tool_search']);
    expect(await onSecond.callTool({ name: 'shared-task_12', arguments: {} })).toMatchObject({
      isError: true,
    });

    await onFirst.callTool({ name: 'tool_search', arguments: { query: 'select:shared-task_12' } });
    // Past the client's own cache: tools/list answers are cacheable for a few seconds.
    const listed = await onSecond.listTools(undefined, { cacheMode: 'bypass' });
    expect(names(listed.tools)).toEqual(['tool_search', 'shared-task_12']);
    const call = await onSecond.callTool({ name: 'shared-task_12', arguments: {} });
    expect(call.structuredContent).toMatchObject({ upstream: 'shared', tool: 'task_12' });

    // The same principal's 2025 session is an owner of its own.
    const { client: session } = await client(second);
    expect(names((await session.listTools()).tools)).toEqual(['tool_search']);
  });
});
