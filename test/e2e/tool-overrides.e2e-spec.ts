import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, eventually } from '../support/mcp-client';
import request from 'supertest';
import { tableOf, textOf as htmlText } from '../support/html-text';
import { pageSession } from '../support/identities';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

const textOf = (result: unknown) =>
  (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');

describe('tool overrides per virtual server', () => {
  let t: TestApp;
  let tickets: UpstreamFixture;
  let crm: UpstreamFixture;
  let ticketsId: string;
  let ids: Record<string, string>;
  let serverId: string;
  const clients: Client[] = [];

  const client = async (id = serverId) => {
    const connected = await connectClient(t.baseUrl, {
      token: t.token,
      path: `/servers/${id}/mcp`,
    });
    clients.push(connected);
    return connected;
  };
  const listed = async (id = serverId): Promise<Tool[]> =>
    (await (await client(id)).listTools()).tools;

  beforeAll(async () => {
    t = await startTestApp();
    tickets = await startUpstream({
      name: 'tickets',
      tools: [
        echoTool('search', 'tickets', {
          description: 'Search',
          annotations: { readOnlyHint: false, openWorldHint: true },
        }),
        echoTool('close_ticket', 'tickets', { description: 'Close a ticket' }),
      ],
    });
    crm = await startUpstream({ name: 'crm', tools: [echoTool('lookup', 'crm')] });
    ticketsId = (
      await t.api().post('/api/v1/gateways').send({ name: 'Tickets', url: tickets.url }).expect(201)
    ).body.id;
    await t.api().post('/api/v1/gateways').send({ name: 'CRM', url: crm.url }).expect(201);
    const tools = await t.api().get('/api/v1/tools').expect(200);
    ids = Object.fromEntries(
      (tools.body.items as { id: string; name: string }[]).map((tool) => [tool.name, tool.id]),
    );
    serverId = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Support',
          toolIds: [ids['tickets-search'], ids['tickets-close_ticket'], ids['crm-lookup']],
        })
        .expect(201)
    ).body.id;
    await t
      .api()
      .put(`/api/v1/servers/${serverId}/tool-overrides/${ids['tickets-search']}`)
      .send({
        name: 'find_tickets',
        title: 'Find tickets',
        description: 'Find support tickets by free text',
        annotations: { readOnlyHint: true, destructiveHint: false },
      })
      .expect(200);
  });

  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await t.close();
    await tickets.close();
    await crm.close();
  });

  it('shows the override in tools/list', async () => {
    const tools = await listed();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'crm-lookup',
      'find_tickets',
      'tickets-close_ticket',
    ]);
    const found = tools.find((tool) => tool.name === 'find_tickets')!;
    expect(found.title).toBe('Find tickets');
    expect(found.description).toBe('Find support tickets by free text');
    expect(found.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: true,
    });
  });

  it('shows overrides and hooks on the server’s admin page, escaped', async () => {
    await t
      .api()
      .put(`/api/v1/servers/${serverId}/tool-overrides/${ids['crm-lookup']}`)
      .send({ description: '<img src=x onerror=alert(1)>' })
      .expect(200);
    await t
      .api()
      .put(`/api/v1/servers/${serverId}/hooks`)
      .send({ hooks: [{ name: 'size-limit', config: { maxResultBytes: 100000 } }] })
      .expect(200);
    const { cookie } = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const html = (
      await request(t.baseUrl).get(`/admin/servers/${serverId}`).set('Cookie', cookie).expect(200)
    ).text;
    expect(html).not.toContain('<img src=x');
    const table = tableOf(html, 'overrides');
    expect(table.rows.map((row) => row[0])).toEqual(['1', '2']);
    expect(table.rows.map((row) => row.slice(1))).toEqual(
      expect.arrayContaining([
        [
          'tickets-search',
          'find_tickets',
          'Find tickets',
          'Find support tickets by free text',
          expect.stringContaining('"readOnlyHint": true'),
        ],
        ['crm-lookup', 'as named', 'upstream’s', '<img src=x onerror=alert(1)>', 'upstream’s'],
      ]),
    );
    expect(htmlText(html)).toContain('size-limit { "maxResultBytes": 100000 }');
    await t
      .api()
      .delete(`/api/v1/servers/${serverId}/tool-overrides/${ids['crm-lookup']}`)
      .expect(204);
    await t.api().put(`/api/v1/servers/${serverId}/hooks`).send({ hooks: [] }).expect(200);
  });

  it('routes the exposed name to the upstream tool, and the old name no more', async () => {
    const mcp = await client();
    expect(textOf(await mcp.callTool({ name: 'find_tickets', arguments: {} }))).toBe(
      'tickets:search',
    );
    await expect(mcp.callTool({ name: 'tickets-search', arguments: {} })).rejects.toThrow(McpError);
  });

  it('applies in tool search', async () => {
    const search = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Support search',
          toolIds: [ids['tickets-search'], ids['crm-lookup']],
          toolSearch: { enabled: true, alwaysLoaded: [] },
        })
        .expect(201)
    ).body.id as string;
    await t
      .api()
      .put(`/api/v1/servers/${search}/tool-overrides/${ids['tickets-search']}`)
      .send({ name: 'find_tickets', description: 'Find support tickets by free text' })
      .expect(200);
    const mcp = await client(search);
    const found = (await mcp.callTool({
      name: 'tool_search',
      arguments: { query: 'support tickets' },
    })) as CallToolResult;
    const tools = (found.structuredContent as { tools: Tool[] }).tools;
    expect(tools.map((tool) => tool.name)).toContain('find_tickets');
    expect(tools.find((tool) => tool.name === 'find_tickets')!.description).toBe(
      'Find support tickets by free text',
    );
    expect(JSON.stringify(found)).not.toContain('tickets-search');
    expect(textOf(await mcp.callTool({ name: 'find_tickets', arguments: {} }))).toBe(
      'tickets:search',
    );
  });

  it('survives a resync that changes the upstream tool', async () => {
    tickets.setTool(
      echoTool('search', 'tickets', {
        description: 'Search, version 2',
        annotations: { readOnlyHint: false, openWorldHint: false },
      }),
    );
    const report = await t.api().post(`/api/v1/gateways/${ticketsId}/sync`).expect(200);
    expect(report.body.updated).toEqual(['search']);
    const stored = await t.api().get(`/api/v1/tools/${ids['tickets-search']}`).expect(200);
    expect(stored.body.description).toBe('Search, version 2');
    await eventually(async () => {
      const found = (await listed()).find((tool) => tool.name === 'find_tickets');
      expect(found?.description).toBe('Find support tickets by free text');
      expect(found?.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
    });
    const overrides = await t.api().get(`/api/v1/servers/${serverId}/tool-overrides`).expect(200);
    expect(overrides.body.items).toEqual([
      expect.objectContaining({ toolId: ids['tickets-search'], name: 'find_tickets' }),
    ]);
  });

  it('refuses an exposed name that clashes with another member (409)', async () => {
    for (const name of ['find_tickets', 'crm-lookup']) {
      const clash = await t
        .api()
        .put(`/api/v1/servers/${serverId}/tool-overrides/${ids['tickets-close_ticket']}`)
        .send({ name })
        .expect(409);
      expect(clash.body.code).toBe('server.name_clash');
      expect(clash.body.clashes).toEqual([expect.objectContaining({ kind: 'tool', name })]);
    }
    expect((await listed()).map((tool) => tool.name)).toContain('tickets-close_ticket');
  });

  it('refuses a member that would clash with an exposed name (409)', async () => {
    const other = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Renamed', toolIds: [ids['tickets-search']] })
        .expect(201)
    ).body.id as string;
    await t
      .api()
      .put(`/api/v1/servers/${other}/tool-overrides/${ids['tickets-search']}`)
      .send({ name: 'crm-lookup' })
      .expect(200);
    const clash = await t
      .api()
      .patch(`/api/v1/servers/${other}`)
      .send({ toolIds: [ids['tickets-search'], ids['crm-lookup']] })
      .expect(409);
    expect(clash.body.code).toBe('server.name_clash');
  });

  it('refuses overrides of tools that are not members, and bad names', async () => {
    const outsider = (
      await t.api().post('/api/v1/servers').send({ name: 'Empty', toolIds: [] }).expect(201)
    ).body.id as string;
    await t
      .api()
      .put(`/api/v1/servers/${outsider}/tool-overrides/${ids['crm-lookup']}`)
      .send({ name: 'x' })
      .expect(422);
    await t
      .api()
      .put(`/api/v1/servers/${serverId}/tool-overrides/${ids['crm-lookup']}`)
      .send({ name: 'has spaces' })
      .expect(422);
    // Tool search answers this name itself: a tool given it was never listed nor called.
    await t
      .api()
      .put(`/api/v1/servers/${serverId}/tool-overrides/${ids['crm-lookup']}`)
      .send({ name: 'tool_search' })
      .expect(422);
    await t
      .api()
      .put(`/api/v1/servers/${serverId}/tool-overrides/${ids['crm-lookup']}`)
      .send({ annotations: { unknownHint: true } })
      .expect(422);
  });

  it('gives the tool back its own name once removed', async () => {
    await t
      .api()
      .delete(`/api/v1/servers/${serverId}/tool-overrides/${ids['tickets-search']}`)
      .expect(204);
    await eventually(async () =>
      expect((await listed()).map((tool) => tool.name)).toContain('tickets-search'),
    );
    await t
      .api()
      .delete(`/api/v1/servers/${serverId}/tool-overrides/${ids['tickets-search']}`)
      .expect(404);
  });
});
