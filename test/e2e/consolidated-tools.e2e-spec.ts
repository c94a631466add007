import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Client as ModernClient } from '@modelcontextprotocol/client';
import { AuditTrail } from '../../src/audit/audit-trail.service';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, pageSession, type TestUser } from '../support/identities';
import { connectClient, eventually, rpcError } from '../support/mcp-client';
import { modernClient } from '../support/modern-client';
import request from 'supertest';
import { textOf } from '../support/html-text';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

const REGIONS = ['eu-west', 'us-east', 'ap-south'] as const;
type Region = (typeof REGIONS)[number];

const FORECAST_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city'],
};

/** The same weather server, deployed in one region. */
function regionalUpstream(region: Region): Promise<UpstreamFixture> {
  return startUpstream({
    name: `weather-${region}`,
    tools: [
      {
        definition: {
          name: 'forecast',
          description: 'The weather forecast for a city',
          inputSchema: FORECAST_SCHEMA,
        },
        handler: (args) => ({
          content: [{ type: 'text', text: `${region}: sunny in ${String(args.city)}` }],
          structuredContent: { region, args },
        }),
      },
      {
        definition: {
          name: 'forecast_hourly',
          description: 'The hourly forecast',
          inputSchema: { ...FORECAST_SCHEMA, required: ['city', 'days'] },
        },
      },
    ],
  });
}

interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, { enum?: string[] }>; required?: string[] };
}

const targetsOf = (tools: ListedTool[], name = 'forecast') =>
  tools.find((tool) => tool.name === name)?.inputSchema.properties?.target?.enum;

describe('consolidated tools: three regional copies of a server as one tool', () => {
  let t: TestApp;
  const upstreams = new Map<Region, UpstreamFixture>();
  const gatewayIds = new Map<Region, string>();
  const forecastIds = new Map<Region, string>();
  let hourlyId: string;
  let serverId: string;
  let searchServerId: string;
  let consolidatedId: string;
  let red: TestUser;
  const clients: { close(): Promise<void> }[] = [];

  const legacy = async (token: string, path = `/servers/${serverId}/mcp`): Promise<Client> => {
    const client = await connectClient(t.baseUrl, { token, path });
    clients.push(client);
    return client;
  };
  const modern = async (
    token: string,
    path = `/servers/${serverId}/mcp`,
  ): Promise<ModernClient> => {
    const client = await modernClient(t, { token, path });
    clients.push(client);
    return client;
  };
  const members = (regions: readonly Region[]) =>
    regions.map((region) => ({ target: region, toolId: forecastIds.get(region)! }));

  beforeAll(async () => {
    t = await startTestApp();
    for (const region of REGIONS) {
      const upstream = await regionalUpstream(region);
      upstreams.set(region, upstream);
      const gateway = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: `Weather ${region}`, url: upstream.url })
        .expect(201);
      gatewayIds.set(region, gateway.body.id);
      const tools = await t
        .api()
        .get('/api/v1/tools')
        .query({ gatewayId: gateway.body.id })
        .expect(200);
      for (const tool of tools.body.items as { id: string; originalName: string }[]) {
        if (tool.originalName === 'forecast') forecastIds.set(region, tool.id);
        else if (region === 'eu-west') hourlyId = tool.id;
      }
    }
    serverId = (await t.api().post('/api/v1/servers').send({ name: 'Weather' }).expect(201)).body
      .id;
    searchServerId = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Weather search', toolSearch: { enabled: true, alwaysLoaded: [] } })
        .expect(201)
    ).body.id;
    red = await createUser(t, 'red-operator', 'operator', [await createTeam(t, 'Red')]);
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await t.close();
    for (const upstream of upstreams.values()) await upstream.close();
  });

  it("refuses tool search's own name", async () => {
    const refused = await t
      .api()
      .post('/api/v1/consolidated-tools')
      .send({
        name: 'tool_search',
        members: [{ target: 'eu-west', toolId: forecastIds.get('eu-west') }],
      })
      .expect(422);
    expect(JSON.stringify(refused.body)).toContain('tool search');
  });

  it('refuses members whose input schemas differ, naming the difference', async () => {
    const refused = await t
      .api()
      .post('/api/v1/consolidated-tools')
      .send({
        name: 'forecast',
        members: [
          { target: 'eu-west', toolId: forecastIds.get('eu-west') },
          { target: 'hourly', toolId: hourlyId },
        ],
      })
      .expect(422);
    expect(refused.body.code).toBe('consolidated_tool.schema_mismatch');
    expect(refused.body.detail).toContain("target 'hourly'");
    expect(refused.body.detail).toContain('required lists "days" only in the other schema');
  });

  it('refuses a name a gateway tool already has', async () => {
    const refused = await t
      .api()
      .post('/api/v1/consolidated-tools')
      .send({ name: 'weather-eu-west-forecast', members: members(['eu-west']) })
      .expect(409);
    expect(refused.body.code).toBe('consolidated_tool.name_taken');
  });

  it('is created from the three regional tools and included in servers', async () => {
    const created = await t
      .api()
      .post('/api/v1/consolidated-tools')
      .send({ name: 'forecast', members: members(REGIONS), serverIds: [serverId, searchServerId] })
      .expect(201);
    consolidatedId = created.body.id;
    expect(created.body).toMatchObject({
      name: 'forecast',
      description: 'The weather forecast for a city',
      inputSchema: FORECAST_SCHEMA,
      members: [
        { target: 'ap-south', toolName: 'weather-ap-south-forecast', drift: null },
        { target: 'eu-west', toolName: 'weather-eu-west-forecast', drift: null },
        { target: 'us-east', toolName: 'weather-us-east-forecast', drift: null },
      ],
    });
    expect([...created.body.serverIds].sort()).toEqual([serverId, searchServerId].sort());
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-ap-south-for-red',
        expression: `tool.id == "${forecastIds.get('ap-south')}" && "Red" in principal.teams`,
        effect: 'deny',
      })
      .expect(201);
  });

  it('shows an admin one tool with all three targets, and calls the chosen one (2025 session)', async () => {
    const admin = await legacy(t.token);
    const { tools } = await admin.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['forecast']);
    expect(targetsOf(tools as ListedTool[])).toEqual(['ap-south', 'eu-west', 'us-east']);
    expect(tools[0]!.inputSchema.required).toEqual(['city', 'target']);
    const called = await admin.callTool({
      name: 'forecast',
      arguments: { city: 'Mumbai', target: 'ap-south' },
    });
    expect(called.structuredContent).toEqual({ region: 'ap-south', args: { city: 'Mumbai' } });
    expect(upstreams.get('ap-south')!.calls.at(-1)).toMatchObject({
      name: 'forecast',
      args: { city: 'Mumbai' },
    });
  });

  it('leaves the target a policy hides out of a user’s enum, and refuses it like an unknown one', async () => {
    const mine = await legacy(red.token);
    const { tools } = await mine.listTools();
    expect(targetsOf(tools as ListedTool[])).toEqual(['eu-west', 'us-east']);
    const hidden = await rpcError(
      mine.callTool({ name: 'forecast', arguments: { city: 'Mumbai', target: 'ap-south' } }),
    );
    const unknown = await rpcError(
      mine.callTool({ name: 'forecast', arguments: { city: 'Mumbai', target: 'mars' } }),
    );
    expect(hidden.message).toContain("needs a 'target' argument, one of: eu-west, us-east");
    expect(unknown.message).toContain("needs a 'target' argument, one of: eu-west, us-east");
    expect(hidden.code).toBe(unknown.code);
    const before = upstreams.get('ap-south')!.calls.length;
    const called = await mine.callTool({
      name: 'forecast',
      arguments: { city: 'Lyon', target: 'eu-west' },
    });
    expect(called.structuredContent).toEqual({ region: 'eu-west', args: { city: 'Lyon' } });
    expect(upstreams.get('ap-south')!.calls.length).toBe(before);
  });

  it('is judged per target by the policy dry run', async () => {
    const dry = await t
      .api()
      .post('/api/v1/policies/dry-run')
      .send({ user: red.username, serverId })
      .expect(200);
    expect(
      (dry.body.tools as { name: string; gatewaySlug: string; listed: boolean }[]).map((row) => [
        row.name,
        row.gatewaySlug,
        row.listed,
      ]),
    ).toEqual([
      ['forecast (target ap-south)', 'weather-ap-south', false],
      ['forecast (target eu-west)', 'weather-eu-west', true],
      ['forecast (target us-east)', 'weather-us-east', true],
    ]);
  });

  it('does the same for 2026-07-28 stateless clients', async () => {
    const mine = await modern(red.token);
    expect(targetsOf((await mine.listTools()).tools as ListedTool[])).toEqual([
      'eu-west',
      'us-east',
    ]);
    await expect(
      mine.callTool({ name: 'forecast', arguments: { city: 'Mumbai', target: 'ap-south' } }),
    ).rejects.toThrow("one of: eu-west, us-east ('ap-south' is none of them)");
    const called = await mine.callTool({
      name: 'forecast',
      arguments: { city: 'Boston', target: 'us-east' },
    });
    expect(called.structuredContent).toEqual({ region: 'us-east', args: { city: 'Boston' } });
    const admin = await modern(t.token);
    expect(targetsOf((await admin.listTools()).tools as ListedTool[])).toEqual([
      'ap-south',
      'eu-west',
      'us-east',
    ]);
  });

  it('is not listed for a caller who may reach no target', async () => {
    const policy = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-forecast-for-red',
        expression: `tool.originalName == "forecast" && "Red" in principal.teams`,
        effect: 'deny',
        serverId,
      })
      .expect(201);
    const mine = await legacy(red.token);
    expect((await mine.listTools()).tools).toEqual([]);
    const refused = await rpcError(
      mine.callTool({ name: 'forecast', arguments: { city: 'Lyon', target: 'eu-west' } }),
    );
    expect(refused.message).toContain('Unknown tool: forecast');
    await t.api().delete(`/api/v1/policies/${policy.body.id}`).expect(204);
  });

  it('is found by tool search with the caller’s own targets', async () => {
    const mine = await legacy(red.token, `/servers/${searchServerId}/mcp`);
    const searchTool = (await mine.listTools()).tools;
    expect(searchTool.map((tool) => tool.name)).toEqual(['tool_search']);
    expect(searchTool[0]!.description).toContain('by gateway: (consolidated) (1)');
    await mine.callTool({ name: 'tool_search', arguments: { query: 'select:forecast' } });
    const { tools } = await mine.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['tool_search', 'forecast']);
    expect(targetsOf(tools as ListedTool[])).toEqual(['eu-west', 'us-east']);
    const called = await mine.callTool({
      name: 'forecast',
      arguments: { city: 'Lyon', target: 'eu-west' },
    });
    expect(called.structuredContent).toMatchObject({ region: 'eu-west' });
  });

  it('puts the consolidated name and the target’s gateway in the audit trail', async () => {
    await t.app.get(AuditTrail).flush();
    const audit = await t
      .api()
      .get('/api/v1/audit')
      .query({ kind: 'mcp', limit: '100' })
      .expect(200);
    const calls = (
      audit.body.items as { action: string; target: string; gateway: string }[]
    ).filter((entry) => entry.action === 'tools/call' && entry.target === 'forecast');
    expect(calls.map((entry) => entry.gateway)).toEqual(
      expect.arrayContaining(['weather-ap-south', 'weather-eu-west', 'weather-us-east']),
    );
  });

  it('tells connected sessions their list changed when its members change', async () => {
    const admin = await legacy(t.token);
    let changed = 0;
    admin.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    expect(targetsOf((await admin.listTools()).tools as ListedTool[])).toHaveLength(3);
    await t
      .api()
      .patch(`/api/v1/consolidated-tools/${consolidatedId}`)
      .send({ members: members(['eu-west', 'ap-south']) })
      .expect(200);
    await eventually(() => expect(changed).toBeGreaterThan(0));
    expect(targetsOf((await admin.listTools()).tools as ListedTool[])).toEqual([
      'ap-south',
      'eu-west',
    ]);
    await t
      .api()
      .patch(`/api/v1/consolidated-tools/${consolidatedId}`)
      .send({ members: members(REGIONS) })
      .expect(200);
  });

  it('serves it on /mcp beside the member tools', async () => {
    const admin = await legacy(t.token, '/mcp');
    const names = (await admin.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('forecast');
    expect(names).toContain('weather-eu-west-forecast');
  });

  it('is exported and applied as code, by virtual tool names and server names', async () => {
    const exported = await t.api().get('/api/v1/config').expect(200);
    expect(exported.body.consolidatedTools).toEqual([
      {
        name: 'forecast',
        description: 'The weather forecast for a city',
        members: [
          { target: 'ap-south', tool: 'weather-ap-south-forecast' },
          { target: 'eu-west', tool: 'weather-eu-west-forecast' },
          { target: 'us-east', tool: 'weather-us-east-forecast' },
        ],
        servers: ['Weather', 'Weather search'],
      },
    ]);
    const pair = {
      name: 'forecast-pair',
      members: [
        { target: 'eu', tool: 'weather-eu-west-forecast' },
        { target: 'us', tool: 'weather-us-east-forecast' },
      ],
      servers: ['Weather'],
    };
    const document = { apiVersion: exported.body.apiVersion, consolidatedTools: [pair] };
    const applied = await t.api().put('/api/v1/config').send(document).expect(200);
    expect(applied.body.changes).toEqual([
      expect.objectContaining({
        action: 'create',
        kind: 'consolidated tool',
        name: 'forecast-pair',
      }),
    ]);
    const again = await t.api().put('/api/v1/config').send(document).expect(200);
    expect(again.body.changes).toEqual([]);
    const admin = await legacy(t.token);
    await eventually(async () =>
      expect(targetsOf((await admin.listTools()).tools as ListedTool[], 'forecast-pair')).toEqual([
        'eu',
        'us',
      ]),
    );
    const mismatched = await t
      .api()
      .put('/api/v1/config')
      .send({
        ...document,
        consolidatedTools: [
          {
            ...pair,
            members: [
              ...pair.members,
              { target: 'hourly', tool: 'weather-eu-west-forecast_hourly' },
            ],
          },
        ],
      })
      .expect(422);
    expect(mismatched.body.detail).toContain("target 'hourly'");
    const pruned = await t
      .api()
      .put('/api/v1/config?prune=true')
      .send({
        apiVersion: exported.body.apiVersion,
        consolidatedTools: exported.body.consolidatedTools,
      })
      .expect(200);
    expect(pruned.body.changes).toEqual([
      expect.objectContaining({
        action: 'delete',
        kind: 'consolidated tool',
        name: 'forecast-pair',
      }),
    ]);
  });

  it('reports a member whose schema drifted on a resync, and withholds that target', async () => {
    const upstream = upstreams.get('ap-south')!;
    upstream.setTool({
      definition: {
        name: 'forecast',
        description: 'The weather forecast for a city',
        inputSchema: {
          ...FORECAST_SCHEMA,
          properties: { ...FORECAST_SCHEMA.properties, days: { type: 'string' } },
        },
      },
      handler: () => ({ content: [{ type: 'text', text: 'drifted' }] }),
    });
    const sync = await t
      .api()
      .post(`/api/v1/gateways/${gatewayIds.get('ap-south')}/sync`)
      .expect(200);
    expect(sync.body.consolidationDrift).toEqual([
      {
        name: 'forecast',
        consolidatedTool: 'forecast',
        target: 'ap-south',
        difference: 'properties.days.type is "integer" here and "string" in the other schema',
      },
    ]);
    const shown = await t.api().get(`/api/v1/consolidated-tools/${consolidatedId}`).expect(200);
    expect(
      (shown.body.members as { target: string; drift: string | null }[]).map((m) => [
        m.target,
        m.drift !== null,
      ]),
    ).toEqual([
      ['ap-south', true],
      ['eu-west', false],
      ['us-east', false],
    ]);
    const gateway = await t
      .api()
      .get(`/api/v1/gateways/${gatewayIds.get('ap-south')}`)
      .expect(200);
    expect(gateway.body.lastSyncReport.consolidationDrift).toHaveLength(1);
    const admin = await legacy(t.token);
    await eventually(async () =>
      expect(targetsOf((await admin.listTools()).tools as ListedTool[])).toEqual([
        'eu-west',
        'us-east',
      ]),
    );
    const refused = await rpcError(
      admin.callTool({ name: 'forecast', arguments: { city: 'Delhi', target: 'ap-south' } }),
    );
    expect(refused.message).toContain('one of: eu-west, us-east');
    // An unchanged document still applies: the drifted member stays withheld, not an error.
    const exported = await t.api().get('/api/v1/config').expect(200);
    const reapplied = await t
      .api()
      .put('/api/v1/config')
      .send({
        apiVersion: exported.body.apiVersion,
        consolidatedTools: exported.body.consolidatedTools,
      })
      .expect(200);
    expect(reapplied.body.changes).toEqual([]);
  });

  it('counts a call against the member tool’s rate limit, target by target', async () => {
    const limit = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'user', toolId: forecastIds.get('us-east'), points: 1, windowSeconds: 60 })
      .expect(201);
    const mine = await legacy(red.token);
    await mine.callTool({ name: 'forecast', arguments: { city: 'Boston', target: 'us-east' } });
    const refused = await rpcError(
      mine.callTool({ name: 'forecast', arguments: { city: 'Boston', target: 'us-east' } }),
    );
    expect(refused.code).toBe(-32014);
    const other = await mine.callTool({
      name: 'forecast',
      arguments: { city: 'Lyon', target: 'eu-west' },
    });
    expect(other.structuredContent).toMatchObject({ region: 'eu-west' });
    await t.api().delete(`/api/v1/rate-limits/${limit.body.id}`).expect(204);
  });

  it('asks for the approval a policy wants for the member tool, naming the consolidated tool', async () => {
    const policy = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'eu-west-needs-a-yes',
        expression: `tool.id == "${forecastIds.get('eu-west')}"`,
        effect: 'approve',
        serverId,
      })
      .expect(201);
    const asked: string[] = [];
    let answer: { action: 'accept' | 'decline'; content?: Record<string, boolean> } = {
      action: 'decline',
    };
    const client = await connectClient(t.baseUrl, {
      token: t.token,
      path: `/servers/${serverId}/mcp`,
      capabilities: { elicitation: {} },
    });
    clients.push(client);
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer;
    });
    const before = upstreams.get('eu-west')!.calls.length;
    await expect(
      client.callTool({ name: 'forecast', arguments: { city: 'Oslo', target: 'eu-west' } }),
    ).rejects.toThrow(/Not approved/);
    expect(upstreams.get('eu-west')!.calls.length).toBe(before);
    expect(asked[0]).toContain("Policy 'eu-west-needs-a-yes'");
    expect(asked[0]).toContain('forecast');
    answer = { action: 'accept', content: {} };
    const called = await client.callTool({
      name: 'forecast',
      arguments: { city: 'Oslo', target: 'eu-west' },
    });
    expect(called.structuredContent).toEqual({ region: 'eu-west', args: { city: 'Oslo' } });
    // Another target is another member tool, which the policy does not hold.
    await client.callTool({ name: 'forecast', arguments: { city: 'Boston', target: 'us-east' } });
    expect(asked).toHaveLength(2);
    await t.api().delete(`/api/v1/policies/${policy.body.id}`).expect(204);
  });

  it('is listed, with its drift, created and deleted on the admin pages', async () => {
    const { cookie, csrf } = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const page = () =>
      request(t.baseUrl).get('/admin/consolidated-tools').set('Cookie', cookie).expect(200);
    const post = (path: string, form: Record<string, string>) =>
      request(t.baseUrl)
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf: csrf, ...form });
    const listed = textOf((await page()).text);
    expect(listed).toContain('ap-south → weather-ap-south-forecast drifted properties.days.type');
    expect(listed).toContain('eu-west → weather-eu-west-forecast');
    const gatewayPage = textOf(
      (
        await request(t.baseUrl)
          .get(`/admin/gateways/${gatewayIds.get('ap-south')}`)
          .set('Cookie', cookie)
          .expect(200)
      ).text,
    );
    expect(gatewayPage).toContain('1 consolidated target drifted');
    expect(gatewayPage).toContain('Consolidated targets withheld: schema drift (1)');
    const refused = await post('/admin/consolidated-tools', {
      name: 'forecast-admin',
      members: 'eu weather-eu-west-forecast\nhourly weather-eu-west-forecast_hourly',
    }).expect(422);
    expect(refused.text).toMatch(/<textarea id="members"[^>]*aria-invalid="true"/);
    expect(textOf(refused.text)).toContain("target 'hourly'");
    await post('/admin/consolidated-tools', {
      name: 'forecast-admin',
      members: 'eu weather-eu-west-forecast\nus weather-us-east-forecast',
      serverIds: serverId,
    })
      .expect(303)
      .expect('Location', '/admin/consolidated-tools');
    const created = (await t.api().get('/api/v1/consolidated-tools').expect(200)).body.items.find(
      (item: { name: string }) => item.name === 'forecast-admin',
    );
    expect(created).toMatchObject({
      serverIds: [serverId],
      description: 'The weather forecast for a city',
    });
    expect(textOf((await page()).text)).toContain('us → weather-us-east-forecast');
    await post(`/admin/consolidated-tools/${created.id}/delete`, {}).expect(303);
    expect(textOf((await page()).text)).not.toContain('forecast-admin');
  });

  it('deletes it without touching its member tools', async () => {
    await t.api().delete(`/api/v1/consolidated-tools/${consolidatedId}`).expect(204);
    await t.api().get(`/api/v1/consolidated-tools/${consolidatedId}`).expect(404);
    await t
      .api()
      .get(`/api/v1/tools/${forecastIds.get('eu-west')}`)
      .expect(200);
    expect((await t.api().get('/api/v1/consolidated-tools').expect(200)).body.items).toEqual([]);
  });
});
