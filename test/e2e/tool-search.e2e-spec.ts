import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, eventually } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

const RESOURCES = ['invoice', 'customer', 'order', 'ticket', 'shipment', 'product'];

/** 300 tools: three with their own purpose, the rest alike. */
function bigCatalogue() {
  return [
    echoTool('always_on', 'big', { description: 'Health check of the big upstream' }),
    echoTool('get_weather', 'big', {
      description: 'Get the weather forecast for a city',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' } },
      },
    }),
    echoTool('send_email', 'big', {
      description: 'Send an email message to a recipient',
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, subject: { type: 'string' } },
      },
    }),
    ...Array.from({ length: 297 }, (_, i) =>
      echoTool(`op_${String(i).padStart(3, '0')}`, 'big', {
        description: `Manage ${RESOURCES[i % RESOURCES.length]} record number ${i}`,
      }),
    ),
  ];
}

const DEFERRED_MESSAGE = (name: string) =>
  `Tool '${name}' is deferred and has not been promoted yet. Call tool_search (for example \`select:${name}\`) first, then retry.`;

/** Every page of tools/list (the page size here is small, so this follows cursors). */
async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describe('deferred tool search over MCP', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let gatewayId: string;
  let path: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        MCP_PAGE_SIZE: '2',
        MCP_TOOL_SEARCH: 'true',
        MCP_TOOL_SEARCH_ALWAYS_LOADED: 'big-get_weather',
      },
    });
    upstream = await startUpstream({ name: 'big', tools: bigCatalogue() });
    const gateway = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Big', url: upstream.url })
      .expect(201);
    gatewayId = gateway.body.id;
    expect(gateway.body.toolCount).toBe(300);
    const tools = await t.api().get('/api/v1/tools').query({ gatewayId, limit: 500 }).expect(200);
    const server = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'Big server',
        toolIds: tools.body.items.map((tool: { id: string }) => tool.id),
        toolSearch: { enabled: true, alwaysLoaded: ['big-always_on'] },
      })
      .expect(201);
    path = `/servers/${server.body.id}/mcp`;
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await t.close();
    await upstream.close();
  });

  async function client(): Promise<{ client: Client; listChanged: () => number }> {
    const connected = await connectClient(t.baseUrl, { token: t.token, path });
    clients.push(connected);
    let count = 0;
    connected.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      count += 1;
    });
    // As clients do after connecting; a session that has listed hears only of changes after that.
    await listAll(connected);
    return { client: connected, listChanged: () => count };
  }

  it('lists only the always-loaded tools and tool_search for a 300-tool server', async () => {
    const { client: session } = await client();
    const tools = await listAll(session);
    expect(names(tools)).toEqual(['tool_search', 'big-always_on']);
    expect(tools[0]!.description).toContain('299 tools are deferred, by gateway: big (299).');
    expect(tools[0]!.description).toContain('select:');
  });

  it('promotes what a search finds, says the list changed, then lists and calls it', async () => {
    const { client: session, listChanged } = await client();
    const result = await session.callTool({
      name: 'tool_search',
      arguments: { query: 'weather forecast for a city' },
    });
    expect(result.isError).toBeFalsy();
    const found = (result.structuredContent as { tools: Tool[] }).tools;
    expect(found[0]).toMatchObject({
      name: 'big-get_weather',
      description: 'Get the weather forecast for a city',
      inputSchema: { properties: { city: { type: 'string', description: 'City name' } } },
    });
    expect((result.structuredContent as { hits: unknown[] }).hits[0]).toEqual({
      name: 'big-get_weather',
      description: 'Get the weather forecast for a city',
      required: [],
    });
    const [summary, json] = result.content as { text: string }[];
    expect(summary!.text).toContain('1. big-get_weather - Get the weather forecast for a city');
    expect(JSON.parse(json!.text)).toEqual(result.structuredContent);
    await eventually(() => expect(listChanged()).toBe(1));

    expect(names(await listAll(session))).toEqual([
      'tool_search',
      'big-always_on',
      'big-get_weather',
    ]);
    const call = await session.callTool({ name: 'big-get_weather', arguments: { city: 'Oslo' } });
    expect(call.structuredContent).toEqual({
      upstream: 'big',
      tool: 'get_weather',
      args: { city: 'Oslo' },
    });
  });

  it('refuses a deferred tool the session has not promoted, and calls always-loaded ones', async () => {
    const { client: session } = await client();
    const calls = upstream.calls.length;
    const refused = await session.callTool({ name: 'big-send_email', arguments: {} });
    expect(refused).toEqual({
      isError: true,
      content: [{ type: 'text', text: DEFERRED_MESSAGE('big-send_email') }],
    });
    expect(upstream.calls).toHaveLength(calls);
    const always = await session.callTool({ name: 'big-always_on', arguments: {} });
    expect(always.structuredContent).toMatchObject({ tool: 'always_on' });
  });

  it('refuses a deferred tool called by its hashed backend name, under its virtual name', async () => {
    // Hashed names are an app's (see mcp-apps): the always-loaded tool becomes one meanwhile.
    const app = (await t.api().get('/api/v1/tools/by-name/big-always_on').expect(200)).body;
    const appConfig = (value: object | null) =>
      t.api().patch(`/api/v1/tools/${app.id}`).send({ appConfig: value }).expect(200);
    await appConfig({ prefab: true });
    try {
      const { client: session } = await client();
      const { body } = await t.api().get('/api/v1/tools/by-name/big-op_020').expect(200);
      const hashed = `${body.toolHash}_op_020`;
      const calls = upstream.calls.length;
      await eventually(async () =>
        expect(await session.callTool({ name: hashed, arguments: {} })).toEqual({
          isError: true,
          content: [{ type: 'text', text: DEFERRED_MESSAGE('big-op_020') }],
        }),
      );
      expect(upstream.calls).toHaveLength(calls);
      await session.callTool({ name: 'tool_search', arguments: { query: 'select:big-op_020' } });
      const called = await session.callTool({ name: hashed, arguments: {} });
      expect(called.structuredContent).toMatchObject({ upstream: 'big', tool: 'op_020' });
    } finally {
      await appConfig(null);
    }
  });

  it('keeps each session to its own promotions', async () => {
    const { client: first } = await client();
    const { client: second } = await client();
    await first.callTool({ name: 'tool_search', arguments: { query: 'select:big-op_001' } });
    await second.callTool({ name: 'tool_search', arguments: { query: '+op_002' } });
    expect(names(await listAll(first))).toEqual(['tool_search', 'big-always_on', 'big-op_001']);
    expect(names(await listAll(second))).toEqual(['tool_search', 'big-always_on', 'big-op_002']);
    expect(await second.callTool({ name: 'big-op_001', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: DEFERRED_MESSAGE('big-op_001') }],
    });
  });

  it('merges a second search into the promotions', async () => {
    const { client: session, listChanged } = await client();
    await session.callTool({ name: 'tool_search', arguments: { query: 'select:big-op_010' } });
    await session.callTool({
      name: 'tool_search',
      arguments: { query: 'email message recipient', limit: 1 },
    });
    expect(names(await listAll(session))).toEqual([
      'tool_search',
      'big-always_on',
      'big-op_010',
      'big-send_email',
    ]);
    await eventually(() => expect(listChanged()).toBe(2));
  });

  it('answers empty and invalid queries with an empty result, never an error', async () => {
    const { client: session } = await client();
    for (const query of ['', '   ', '+', '+(', 'select:', '*** ???']) {
      const result = await session.callTool({ name: 'tool_search', arguments: { query } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ hits: [], tools: [] });
    }
    for (const args of [{}, { query: 42 }, { query: ['select:big-op_001'] }]) {
      const result = await session.callTool({ name: 'tool_search', arguments: args });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ hits: [], tools: [] });
    }
    expect(names(await listAll(session))).toEqual(['tool_search', 'big-always_on']);
  });

  it('serves /mcp with the search settings from the configuration', async () => {
    const session = await connectClient(t.baseUrl, { token: t.token });
    clients.push(session);
    expect(names(await listAll(session))).toEqual(['tool_search', 'big-get_weather']);
    expect(await session.callTool({ name: 'big-always_on', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: DEFERRED_MESSAGE('big-always_on') }],
    });
  });

  it('switches search on and off through the REST API, telling connected clients', async () => {
    const tools = await t.api().get('/api/v1/tools').query({ gatewayId, limit: 3 }).expect(200);
    const server = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'Small server',
        toolIds: tools.body.items.map((tool: { id: string }) => tool.id),
      })
      .expect(201);
    const session = await connectClient(t.baseUrl, {
      token: t.token,
      path: `/servers/${server.body.id}/mcp`,
    });
    clients.push(session);
    let listChanged = 0;
    session.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    expect(names(await listAll(session))).toEqual([
      'big-always_on',
      'big-get_weather',
      'big-op_000',
    ]);
    const before = listChanged;

    const edited = await t
      .api()
      .patch(`/api/v1/servers/${server.body.id}`)
      .send({ toolSearch: { enabled: true, alwaysLoaded: ['big-op_000'] } })
      .expect(200);
    expect(edited.body.toolSearch).toEqual({ enabled: true, alwaysLoaded: ['big-op_000'] });
    await eventually(() => expect(listChanged).toBeGreaterThan(before));
    await eventually(async () =>
      expect(names(await listAll(session))).toEqual(['tool_search', 'big-op_000']),
    );
    const searching = listChanged;

    await t
      .api()
      .patch(`/api/v1/servers/${server.body.id}`)
      .send({ toolSearch: { enabled: false, alwaysLoaded: [] } })
      .expect(200);
    await eventually(() => expect(listChanged).toBeGreaterThan(searching));
    await eventually(async () => expect(await listAll(session)).toHaveLength(3));
  });

  it('resets promotions when a sync changes a schema in the catalogue', async () => {
    const { client: session, listChanged } = await client();
    await session.callTool({ name: 'tool_search', arguments: { query: 'select:big-send_email' } });
    expect(names(await listAll(session))).toContain('big-send_email');
    await eventually(() => expect(listChanged()).toBe(1));

    upstream.setTool(
      echoTool('send_email', 'big', {
        description: 'Send an email message to a recipient',
        inputSchema: {
          type: 'object',
          properties: {
            to: { type: 'string' },
            subject: { type: 'string' },
            cc: { type: 'string' },
          },
        },
      }),
    );
    const report = await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
    expect(report.body.updated).toEqual(['send_email']);

    // The catalogue changed: the client hears so on its stream, and the old promotion is gone.
    await eventually(() => expect(listChanged()).toBe(2));
    expect(names(await listAll(session))).toEqual(['tool_search', 'big-always_on']);
    expect(await session.callTool({ name: 'big-send_email', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: DEFERRED_MESSAGE('big-send_email') }],
    });

    const again = await session.callTool({
      name: 'tool_search',
      arguments: { query: 'select:big-send_email' },
    });
    expect(
      (again.structuredContent as { tools: Tool[] }).tools[0]!.inputSchema.properties,
    ).toHaveProperty('cc');
    expect(names(await listAll(session))).toContain('big-send_email');
  });

  describe('with gateways renamed, tools disabled and gateways deactivated', () => {
    const upstreams: UpstreamFixture[] = [];

    afterAll(async () => {
      await Promise.all(upstreams.map((fixture) => fixture.close()));
    });

    async function gateway(name: string, tools: string[]) {
      const fixture = await startUpstream({
        name,
        tools: tools.map((tool) =>
          echoTool(tool, name, { description: `Ledger ${tool.replace('_', ' ')} of ${name}` }),
        ),
      });
      upstreams.push(fixture);
      const { body } = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name, url: fixture.url })
        .expect(201);
      const listed = await t.api().get('/api/v1/tools').query({ gatewayId: body.id }).expect(200);
      const ids = Object.fromEntries(
        (listed.body.items as { id: string; originalName: string }[]).map((tool) => [
          tool.originalName,
          tool.id,
        ]),
      );
      return { id: body.id as string, fixture, ids };
    }

    async function serverSession(serverId: string): Promise<Client> {
      const session = await connectClient(t.baseUrl, {
        token: t.token,
        path: `/servers/${serverId}/mcp`,
      });
      clients.push(session);
      return session;
    }

    async function found(session: Client, query: string): Promise<string[]> {
      const result = await session.callTool({ name: 'tool_search', arguments: { query } });
      return names((result.structuredContent as { tools: Tool[] }).tools);
    }

    it('narrows a search to the gateway named by gateway or server', async () => {
      const eastern = await gateway('Ledger East', ['post_entry', 'close_period']);
      const western = await gateway('Ledger West', ['post_entry', 'close_period']);
      const server = await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Ledgers',
          toolIds: [...Object.values(eastern.ids), ...Object.values(western.ids)],
          toolSearch: { enabled: true, alwaysLoaded: [] },
        })
        .expect(201);
      const session = await serverSession(server.body.id as string);
      const search = async (args: Record<string, unknown>) => {
        const result = await session.callTool({ name: 'tool_search', arguments: args });
        return names((result.structuredContent as { hits: { name: string }[] }).hits);
      };
      expect(await search({ query: 'post entry' })).toEqual(
        expect.arrayContaining(['ledger-east-post_entry', 'ledger-west-post_entry']),
      );
      const west = await search({ query: 'post entry', gateway: 'ledger-west' });
      expect(west[0]).toBe('ledger-west-post_entry');
      expect(west.every((name) => name.startsWith('ledger-west-'))).toBe(true);
      expect(await search({ query: 'post entry', server: 'Ledger-East', limit: 1 })).toEqual([
        'ledger-east-post_entry',
      ]);
      const unknown = await session.callTool({
        name: 'tool_search',
        arguments: { query: 'post entry', gateway: 'ledger-north' },
      });
      expect(unknown.content).toEqual([
        {
          type: 'text',
          text: 'No deferred tool belongs to gateway "ledger-north". Gateways with deferred tools: ledger-east, ledger-west.',
        },
      ]);
    });

    it('keeps always-loaded tools listed across a gateway rename, and edits need not repeat them', async () => {
      const renamable = await gateway('Renamable', ['first_entry', 'second_entry']);
      const server = await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Rename server',
          toolIds: Object.values(renamable.ids),
          toolSearch: { enabled: true, alwaysLoaded: ['renamable-first_entry'] },
        })
        .expect(201);
      const serverId = server.body.id as string;
      expect(names(await listAll(await serverSession(serverId)))).toEqual([
        'tool_search',
        'renamable-first_entry',
      ]);

      await t.api().patch(`/api/v1/gateways/${renamable.id}`).send({ name: 'Renamed' }).expect(200);
      const renamed = await t.api().get(`/api/v1/servers/${serverId}`).expect(200);
      expect(renamed.body.toolSearch).toEqual({
        enabled: true,
        alwaysLoaded: ['renamed-first_entry'],
      });
      expect(names(await listAll(await serverSession(serverId)))).toEqual([
        'tool_search',
        'renamed-first_entry',
      ]);
      await t.api().patch(`/api/v1/servers/${serverId}`).send({ description: 'x' }).expect(200);

      // A sync that drops the always-loaded tool does not make unrelated edits fail...
      renamable.fixture.removeTool('first_entry');
      await t.api().post(`/api/v1/gateways/${renamable.id}/sync`).expect(200);
      const edited = await t
        .api()
        .patch(`/api/v1/servers/${serverId}`)
        .send({ description: 'y' })
        .expect(200);
      expect(edited.body.description).toBe('y');
      // ...while a list that is given is still checked.
      const refused = await t
        .api()
        .patch(`/api/v1/servers/${serverId}`)
        .send({ toolSearch: { enabled: true, alwaysLoaded: ['renamed-first_entry'] } })
        .expect(422);
      expect(refused.body.code).toBe('server.unknown_always_loaded');
    });

    it('never finds a non-member, a disabled tool or a tool of a deactivated gateway', async () => {
      const side = await gateway('Side', ['member_entry', 'disabled_entry', 'outsider_entry']);
      const gone = await gateway('Gone', ['gone_entry']);
      const server = await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Filtered server',
          toolIds: [side.ids.member_entry, side.ids.disabled_entry, gone.ids.gone_entry],
          toolSearch: { enabled: true, alwaysLoaded: [] },
        })
        .expect(201);
      const session = await serverSession(server.body.id);
      const select =
        'select:side-member_entry,side-disabled_entry,side-outsider_entry,gone-gone_entry';
      // Before the changes, each member is found; the outsider never is.
      expect((await found(session, select)).sort()).toEqual([
        'gone-gone_entry',
        'side-disabled_entry',
        'side-member_entry',
      ]);
      expect((await found(session, 'ledger entry')).sort()).toEqual([
        'gone-gone_entry',
        'side-disabled_entry',
        'side-member_entry',
      ]);

      await t
        .api()
        .patch(`/api/v1/tools/${side.ids.disabled_entry}`)
        .send({ enabled: false })
        .expect(200);
      await t.api().post(`/api/v1/gateways/${gone.id}/deactivate`).expect(200);
      await eventually(async () => {
        expect(await found(session, select)).toEqual(['side-member_entry']);
      });
      expect(await found(session, 'ledger entry')).toEqual(['side-member_entry']);
      expect(await found(session, '+entry')).toEqual(['side-member_entry']);
    });
  });
});
