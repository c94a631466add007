import request from 'supertest';
import { factories } from '../support/factories';
import { createTeam, createUser, pageSession, type TestUser } from '../support/identities';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface Owned {
  gatewayId: string;
  toolId: string;
  serverId: string;
  promptId: string;
  resourceId: string;
  templateId: string;
}

/** Every name of team B's things: none may show anywhere a team A user looks. */
const TEAM_B_NAMES = [
  'Bravo gateway',
  'bravo-gateway-secret_tool',
  'Bravo server',
  'secret_prompt',
  'secret-resource',
  'secret-template',
];

function leaks(text: string): string[] {
  return TEAM_B_NAMES.filter((name) => text.includes(name));
}

describe('a user of team A and the things of team B', () => {
  let t: TestApp;
  let a: Owned;
  let b: Owned;
  let global: Owned;
  let member: TestUser;
  let operator: TestUser;
  let teamA: string;
  let teamB: string;

  async function own(name: string, teamId: string | null, tool: string): Promise<Owned> {
    const make = factories(t.app);
    const gateway = await make.gateway({ name: `${name} gateway`, teamId });
    const [stored] = await make.tools(gateway, [tool]);
    const server = await make.server({ name: `${name} server`, toolIds: [stored!.id], teamId });
    const prefix = tool.replace('_tool', '');
    const base = { title: null, description: `${name}'s`, mimeType: null, annotations: null };
    const [prompt] = await make.prompts(gateway, [
      { name: `${prefix}_prompt`, title: null, description: '', arguments: [], meta: null },
    ]);
    const [resource] = await make.resources(gateway, [
      {
        ...base,
        name: `${prefix}-resource`,
        uri: `file:///${prefix}-resource`,
        size: null,
        meta: null,
      },
    ]);
    const [template] = await make.templates(gateway, [
      {
        ...base,
        name: `${prefix}-template`,
        uriTemplate: `file:///${prefix}-template/{id}`,
        meta: null,
      },
    ]);
    return {
      gatewayId: gateway.id,
      toolId: stored!.id,
      serverId: server.id,
      promptId: prompt!.id,
      resourceId: resource!.id,
      templateId: template!.id,
    };
  }

  beforeAll(async () => {
    t = await startTestApp();
    teamA = await createTeam(t, 'Alpha');
    teamB = await createTeam(t, 'Bravo');
    a = await own('Alpha', teamA, 'alpha_tool');
    b = await own('Bravo', teamB, 'secret_tool');
    global = await own('Global', null, 'shared_tool');
    member = await createUser(t, 'amy', 'member', [teamA]);
    operator = await createUser(t, 'oscar', 'operator', [teamA]);
  });

  afterAll(async () => {
    await t.close();
  });

  const as = (user: TestUser) => {
    const agent = request.agent(t.baseUrl);
    agent.set('Authorization', `Bearer ${user.token}`);
    return agent;
  };

  it('never lists team B’s servers or teams to a member, nor reads them', async () => {
    const servers = await as(member).get('/api/v1/servers').expect(200);
    expect(servers.body.items.map((server: { id: string }) => server.id).sort()).toEqual(
      [a.serverId, global.serverId].sort(),
    );
    expect(leaks(servers.text)).toEqual([]);
    await as(member).get(`/api/v1/servers/${b.serverId}`).expect(404);
    const teams = await as(member).get('/api/v1/teams').expect(200);
    expect(teams.body.items.map((team: { id: string }) => team.id)).toEqual([teamA]);
    await as(member).get(`/api/v1/teams/${teamB}`).expect(404);
    await as(member).get('/api/v1/gateways').expect(403);
    await as(member).get('/api/v1/tools').expect(403);
  });

  it('never lets a member or operator of team A use team B’s MCP endpoint', async () => {
    for (const user of [member, operator]) {
      const refused = await postMcp(
        `${t.baseUrl}/servers/${b.serverId}/mcp`,
        user.token,
        initializeRequest(),
      );
      expect(refused.status).toBe(404);
      const allowed = await postMcp(
        `${t.baseUrl}/servers/${a.serverId}/mcp`,
        user.token,
        initializeRequest(),
      );
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('"protocolVersion"');
      expect((await postMcp(`${t.baseUrl}/mcp`, user.token, initializeRequest())).status).toBe(403);
    }
  });

  it('answers team B’s server on every MCP route exactly as one that does not exist', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const modern = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        },
      },
    };
    const routes: [string, string, unknown?][] = [
      ['POST', 'mcp', initializeRequest()],
      ['POST', 'mcp', modern],
      ['GET', 'mcp'],
      ['DELETE', 'mcp'],
      ['GET', 'sse'],
      ['POST', 'messages?sessionId=x', { jsonrpc: '2.0', id: 1, method: 'ping' }],
    ];
    /** What a client can tell of an answer: its status, body and headers (less what each has). */
    const seen = async (serverId: string, [method, path, body]: (typeof routes)[number]) => {
      const answer = await fetch(`${t.baseUrl}/servers/${serverId}/${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${member.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(body === modern ? { 'MCP-Protocol-Version': '2026-07-28' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const headers: [string, string][] = [];
      answer.headers.forEach((value, name) => {
        if (name !== 'date' && name !== 'x-request-id') headers.push([name, value]);
      });
      return { status: answer.status, body: await answer.text(), headers };
    };
    for (const route of routes) {
      const hidden = await seen(b.serverId, route);
      expect(hidden.status).toBe(404);
      expect(hidden.body).not.toContain('team');
      expect(hidden).toEqual(await seen(missing, route));
    }
    // The REST API already answers alike: another team's server is as missing as none.
    for (const id of [b.serverId, missing]) {
      const rest = await as(member).get(`/api/v1/servers/${id}`).expect(404);
      expect(rest.body.detail).toBe(`Server ${id} does not exist.`);
    }
  });

  it('never gives team A a token for team B’s server', async () => {
    await as(member).post(`/api/v1/servers/${b.serverId}/tokens`).send({}).expect(404);
    const refused = await as(member)
      .post('/api/v1/tokens')
      .send({ name: 'sneaky', serverIds: [b.serverId] })
      .expect(422);
    expect(refused.body.serverIds).toEqual([b.serverId]);
    await as(member)
      .post('/api/v1/tokens')
      .send({ name: 'fine', serverIds: [a.serverId, global.serverId] })
      .expect(201);
    await as(member).post('/api/v1/tokens').send({ name: 'up', role: 'operator' }).expect(422);
  });

  it('never lists, reads, changes or calls team B’s gateways and tools for an operator', async () => {
    const gateways = await as(operator).get('/api/v1/gateways').expect(200);
    expect(gateways.body.items.map((gateway: { id: string }) => gateway.id).sort()).toEqual(
      [a.gatewayId, global.gatewayId].sort(),
    );
    const tools = await as(operator).get('/api/v1/tools?limit=500').expect(200);
    expect(tools.body.items.map((tool: { id: string }) => tool.id).sort()).toEqual(
      [a.toolId, global.toolId].sort(),
    );
    for (const response of [gateways, tools]) expect(leaks(response.text)).toEqual([]);
    await as(operator).get('/api/v1/tools?q=secret').expect(200, { items: [], total: 0 });
    await as(operator).get(`/api/v1/gateways/${b.gatewayId}`).expect(404);
    await as(operator).patch(`/api/v1/gateways/${b.gatewayId}`).send({ name: 'x' }).expect(404);
    await as(operator).post(`/api/v1/gateways/${b.gatewayId}/sync`).expect(404);
    await as(operator).post(`/api/v1/gateways/${b.gatewayId}/deactivate`).expect(404);
    await as(operator).delete(`/api/v1/gateways/${b.gatewayId}`).expect(404);
    await as(operator).get(`/api/v1/tools/${b.toolId}`).expect(404);
    await as(operator).get('/api/v1/tools/by-name/bravo-gateway-secret_tool').expect(404);
    await as(operator).patch(`/api/v1/tools/${b.toolId}`).send({ enabled: false }).expect(404);
    await as(operator).post(`/api/v1/tools/${b.toolId}/invoke`).send({}).expect(404);
    await as(operator).get(`/api/v1/servers/${b.serverId}`).expect(404);
    await as(operator).delete(`/api/v1/servers/${b.serverId}`).expect(404);
    await t.api().get(`/api/v1/gateways/${b.gatewayId}`).expect(200);
  });

  it('lets an operator read global gateways but change only their own team’s', async () => {
    await as(operator).get(`/api/v1/gateways/${global.gatewayId}`).expect(200);
    await as(operator)
      .patch(`/api/v1/gateways/${global.gatewayId}`)
      .send({ name: 'Renamed' })
      .expect(403);
    await as(operator).patch(`/api/v1/gateways/${a.gatewayId}`).send({ teamId: teamB }).expect(403);
    await as(operator)
      .post('/api/v1/gateways')
      .send({ name: 'Into B', url: 'http://127.0.0.1:9/into-b', teamId: teamB })
      .expect(403);
  });

  it('shows an operator the prompts, resources and templates of team A’s and global gateways, and lets them change team A’s only', async () => {
    await as(member).get('/api/v1/prompts').expect(403);
    for (const [path, field] of [
      ['/api/v1/prompts', 'promptId'],
      ['/api/v1/resources', 'resourceId'],
      ['/api/v1/resource-templates', 'templateId'],
    ] as const) {
      const listed = await as(operator).get(`${path}?limit=500`).expect(200);
      expect(listed.body.items.map((item: { id: string }) => item.id).sort()).toEqual(
        [a[field], global[field]].sort(),
      );
      expect({ path, leaks: leaks(listed.text) }).toEqual({ path, leaks: [] });
      await as(operator).get(`${path}?q=secret`).expect(200, { items: [], total: 0 });
      await as(operator).get(`${path}/${b[field]}`).expect(404);
      await as(operator).patch(`${path}/${b[field]}`).send({ enabled: false }).expect(404);
      await as(operator).get(`${path}/${global[field]}`).expect(200);
      await as(operator).patch(`${path}/${global[field]}`).send({ enabled: false }).expect(403);
      const changed = await as(operator)
        .patch(`${path}/${a[field]}`)
        .send({ enabled: false })
        .expect(200);
      expect(changed.body.enabled).toBe(false);
      await as(operator).patch(`${path}/${a[field]}`).send({ enabled: true }).expect(200);
      await t.api().get(`${path}/${b[field]}`).expect(200);
    }
  });

  it('never lets an operator put team B’s tool into a server, or a server into team B', async () => {
    const refused = await as(operator)
      .post('/api/v1/servers')
      .send({ name: 'Grab', toolIds: [b.toolId] })
      .expect(422);
    expect(refused.body.unknownToolIds).toEqual([b.toolId]);
    await as(operator).post('/api/v1/servers').send({ name: 'Into B', teamId: teamB }).expect(403);
    const created = await as(operator)
      .post('/api/v1/servers')
      .send({ name: 'Mine', toolIds: [a.toolId, global.toolId] })
      .expect(201);
    expect(created.body.teamId).toBe(teamA);
  });

  it('shows team A’s pages without a trace of team B', async () => {
    const { cookie } = await pageSession(t, 'oscar');
    for (const path of [
      '/admin',
      '/admin/gateways',
      '/admin/tools',
      '/admin/tools?q=secret',
      '/admin/prompts',
      '/admin/resources',
      `/admin/prompts/${global.promptId}`,
      `/admin/resources/${global.resourceId}`,
      `/admin/resources/templates/${global.templateId}`,
      '/admin/servers',
      '/admin/servers/new',
      '/admin/tokens',
    ]) {
      const page = await request(t.baseUrl).get(path).set('Cookie', cookie).expect(200);
      expect({ path, leaks: leaks(page.text) }).toEqual({ path, leaks: [] });
    }
    for (const path of [
      `/admin/gateways/${b.gatewayId}`,
      `/admin/tools/${b.toolId}`,
      `/admin/prompts/${b.promptId}`,
      `/admin/resources/${b.resourceId}`,
      `/admin/resources/templates/${b.templateId}`,
      `/admin/servers/${b.serverId}`,
      `/admin/servers/${b.serverId}/edit`,
    ]) {
      const page = await request(t.baseUrl).get(path).set('Cookie', cookie).expect(404);
      expect(leaks(page.text)).toEqual([]);
    }
    // The enable form shows where the operator may use it: team A's entries, not global ones.
    for (const [path, own] of [
      [`/admin/prompts/${a.promptId}`, true],
      [`/admin/prompts/${global.promptId}`, false],
      [`/admin/resources/${a.resourceId}`, true],
      [`/admin/resources/templates/${global.templateId}`, false],
    ] as const) {
      const page = await request(t.baseUrl).get(path).set('Cookie', cookie).expect(200);
      expect({ path, form: page.text.includes(`action="${path}"`) }).toEqual({ path, form: own });
    }
  });
});
