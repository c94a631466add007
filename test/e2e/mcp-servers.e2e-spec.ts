import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, eventually, initializeRequest, postMcp } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface ToolJson {
  id: string;
  name: string;
}

describe('virtual servers over MCP', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let tools: Map<string, string>;
  let serverA: { id: string; mcpUrl: string };
  let serverB: { id: string; mcpUrl: string };
  let tokenA: string;
  const open: Client[] = [];

  const connect = async (path: string, token: string) => {
    const client = await connectClient(t.baseUrl, { token, path });
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { MCP_PAGE_SIZE: '2' } });
    upstream = await startUpstream({
      name: 'up',
      tools: ['a', 'b', 'c', 'd', 'e'].map((name) => echoTool(name, 'up')),
    });
    await t.api().post('/api/v1/gateways').send({ name: 'Up', url: upstream.url }).expect(201);
    const listed = await t.api().get('/api/v1/tools').expect(200);
    tools = new Map(listed.body.items.map((tool: ToolJson) => [tool.name, tool.id]));
    serverA = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'A', toolIds: [tools.get('up-a'), tools.get('up-b')] })
        .expect(201)
    ).body;
    serverB = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'B', toolIds: [tools.get('up-c')] })
        .expect(201)
    ).body;
    tokenA = (await t.api().post(`/api/v1/servers/${serverA.id}/tokens`).send({}).expect(201)).body
      .accessToken;
  });

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await t.close();
    await upstream.close();
  });

  it('lists and calls only the server’s own tools', async () => {
    const client = await connect(`/servers/${serverA.id}/mcp`, tokenA);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['up-a', 'up-b']);
    await expect(client.callTool({ name: 'up-a', arguments: {} })).resolves.toMatchObject({
      structuredContent: { tool: 'a' },
    });
    await expect(client.callTool({ name: 'up-c', arguments: {} })).rejects.toThrow(
      /-32602.*Unknown tool: up-c/,
    );
    expect(upstream.calls.map((call) => call.name)).not.toContain('c');
  });

  it('keeps a server-scoped token to its own server', async () => {
    await expect(connect(`/servers/${serverB.id}/mcp`, tokenA)).rejects.toMatchObject({
      code: 403,
    });
    await expect(connect('/mcp', tokenA)).rejects.toMatchObject({ code: 403 });
    const rest = await fetch(`${t.baseUrl}/api/v1/tools`, {
      headers: { Authorization: `Bearer ${tokenA}` },
    });
    expect(rest.status).toBe(403);
  });

  it('does not let one server’s session be used on another server’s URL', async () => {
    const client = await connect(`/servers/${serverA.id}/mcp`, t.token);
    const sessionId = (client.transport as { sessionId?: string }).sessionId!;
    const response = await postMcp(
      `${t.baseUrl}/servers/${serverB.id}/mcp`,
      t.token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'up-c', arguments: {} } },
      { 'Mcp-Session-Id': sessionId },
    );
    expect(response.status).toBe(404);
  });

  it('pages tools/list for large catalogues', async () => {
    const client = await connect('/mcp', t.token);
    const first = await client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(['up-a', 'up-b']);
    const second = await client.listTools({ cursor: first.nextCursor });
    const third = await client.listTools({ cursor: second.nextCursor });
    expect([...second.tools, ...third.tools].map((tool) => tool.name)).toEqual([
      'up-c',
      'up-d',
      'up-e',
    ]);
    expect(third.nextCursor).toBeUndefined();
    await expect(client.listTools({ cursor: 'nonsense' })).rejects.toThrow(
      /-32602.*Invalid cursor/,
    );
  });

  it('hides disabled tools and deactivated gateways from listing and calling', async () => {
    const client = await connect('/mcp', t.token);
    await t
      .api()
      .patch(`/api/v1/tools/${tools.get('up-d')}`)
      .send({ enabled: false })
      .expect(200);
    const names = async () => {
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        all.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    };
    expect(await names()).toEqual(['up-a', 'up-b', 'up-c', 'up-e']);
    await expect(client.callTool({ name: 'up-d', arguments: {} })).rejects.toThrow(/Unknown tool/);

    const gatewayId = (await t.api().get('/api/v1/gateways').expect(200)).body.items[0].id;
    await t.api().post(`/api/v1/gateways/${gatewayId}/deactivate`).expect(200);
    expect(await names()).toEqual([]);
    await expect(client.callTool({ name: 'up-a', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await t.api().post(`/api/v1/gateways/${gatewayId}/activate`).expect(200);
    await t
      .api()
      .patch(`/api/v1/tools/${tools.get('up-d')}`)
      .send({ enabled: true })
      .expect(200);
    expect(await names()).toEqual(['up-a', 'up-b', 'up-c', 'up-d', 'up-e']);
  });

  it('tells a streaming client when its server’s tools change, and only then', async () => {
    const client = await connect(`/servers/${serverA.id}/mcp`, t.token);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    await client.listTools();
    // Wait until the client's GET stream is open: a renamed server is a changed list.
    let renames = 0;
    await eventually(
      async () => {
        await t
          .api()
          .patch(`/api/v1/servers/${serverA.id}`)
          .send({ name: `A${++renames}` })
          .expect(200);
        expect(changes).toBeGreaterThan(0);
      },
      10_000,
      300,
    );
    // The last renames may still be announcing: wait for a quiet 400 ms before counting afresh.
    for (let seen = -1; seen !== changes;) {
      seen = changes;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    await client.listTools();
    changes = 0;
    await t
      .api()
      .patch(`/api/v1/servers/${serverB.id}`)
      .send({ description: 'unrelated' })
      .expect(200);
    // Well past the 100 ms window in which changes are batched: B's edit alone announced nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(changes).toBe(0);
    await t
      .api()
      .patch(`/api/v1/servers/${serverA.id}`)
      .send({ toolIds: [tools.get('up-a')] })
      .expect(200);
    await eventually(() => expect(changes).toBe(1));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['up-a']);
  });

  it('ends a session of a deleted server', async () => {
    const extra = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Temp', toolIds: [tools.get('up-e')] })
        .expect(201)
    ).body;
    const client = await connect(`/servers/${extra.id}/mcp`, t.token);
    await client.listTools();
    await t.api().delete(`/api/v1/servers/${extra.id}`).expect(204);
    await expect(client.listTools()).rejects.toMatchObject({ code: 404 });
  });

  it.each([
    ['deleted', (id: string) => t.api().delete(`/api/v1/servers/${id}`).expect(204)],
    [
      'disabled',
      (id: string) => t.api().patch(`/api/v1/servers/${id}`).send({ enabled: false }).expect(200),
    ],
  ])('ends the event stream of a session whose server was %s', async (what, change) => {
    const server = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: `Streamed ${what}`, toolIds: [tools.get('up-e')] })
        .expect(201)
    ).body as { id: string };
    const path = `/servers/${server.id}/mcp`;
    const initialized = await postMcp(`${t.baseUrl}${path}`, t.token, initializeRequest());
    expect(initialized.status).toBe(200);
    await initialized.text();
    const stream = await fetch(`${t.baseUrl}${path}`, {
      headers: {
        Authorization: `Bearer ${t.token}`,
        Accept: 'text/event-stream',
        'Mcp-Session-Id': initialized.headers.get('mcp-session-id')!,
      },
    });
    expect(stream.status).toBe(200);
    const ended = stream.text();
    await change(server.id);
    await expect(
      Promise.race([
        ended.then(() => 'ended'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 5000)),
      ]),
    ).resolves.toBe('ended');
  });
});
