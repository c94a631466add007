import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, type TestUser } from '../support/identities';
import { connectClient, rpcError } from '../support/mcp-client';
import { rawCall } from '../support/modern-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface StoredTool {
  id: string;
  originalName: string;
  toolHash: string;
}

/**
 * An attacker's routes to a tool a policy denies or holds for approval: every name a tool goes
 * by (virtual, original naming, a renaming override, the hashed app name), every endpoint (`/mcp`,
 * a server that holds only another tool of the gateway), both eras and REST. Policies judge the
 * tool, not the route: none of them gets past.
 */
describe('policies judge the tool, whatever route reached it', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let tools: Record<string, StoredTool>;
  let onlyEcho: string;
  let onlyReadTable: string;
  let original: string;
  let red: string;
  let operator: TestUser;
  const clients: Client[] = [];

  const hashed = (name: string) => `${tools[name]!.toolHash}_${name}`;
  const called = (name: string) => upstream.calls.filter((call) => call.name === name).length;
  const client = async (path = '/mcp', token = t.token, capabilities = {}) => {
    const connected = await connectClient(t.baseUrl, { token, path, capabilities });
    clients.push(connected);
    return connected;
  };
  const serverPath = (id: string) => `/servers/${id}/mcp`;
  const server = async (body: Record<string, unknown>, token = t.token) =>
    (
      await request(t.baseUrl)
        .post('/api/v1/servers')
        .set('Authorization', `Bearer ${token}`)
        .send(body)
        .expect(201)
    ).body.id as string;

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startUpstream({
      name: 'fx',
      tools: [
        echoTool('read_secret', 'fx'),
        echoTool('echo', 'fx'),
        echoTool('drop_table', 'fx', { annotations: { destructiveHint: true } }),
        echoTool('read_table', 'fx', { annotations: { readOnlyHint: true } }),
      ],
    });
    const gateway = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'fx', url: upstream.url })
      .expect(201);
    const listed = await t
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId: gateway.body.id })
      .expect(200);
    tools = Object.fromEntries(
      (listed.body.items as StoredTool[]).map((tool) => [tool.originalName, tool]),
    );
    // Each server's one tool is an app (Portico's renderer), through which the gateway's other
    // tools answer to their hashed names there (see mcp-apps: only where an app is served).
    for (const app of [tools.echo!, tools.read_table!])
      await t
        .api()
        .patch(`/api/v1/tools/${app.id}`)
        .send({ appConfig: { prefab: true } })
        .expect(200);
    onlyEcho = await server({ name: 'only-echo', toolIds: [tools.echo!.id] });
    onlyReadTable = await server({ name: 'only-read-table', toolIds: [tools.read_table!.id] });
    original = await server({
      name: 'original',
      naming: 'original',
      toolIds: Object.values(tools).map((tool) => tool.id),
    });
    await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'no-secrets', expression: "tool.name == 'fx-read_secret'", effect: 'deny' })
      .expect(201);
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'destructive-needs-a-yes',
        expression: 'tool.annotations.destructiveHint == true',
        effect: 'approve',
      })
      .expect(201);
    red = await createTeam(t, 'Red');
    operator = await createUser(t, 'red-operator', 'operator', [red]);
  });

  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await t?.close();
    await upstream?.close();
  });

  it('a deny on tool.name holds on every name and endpoint, in both eras and over REST', async () => {
    const routes: [string, string][] = [
      ['/mcp', 'fx-read_secret'],
      ['/mcp', hashed('read_secret')],
      [serverPath(onlyEcho), hashed('read_secret')],
      [serverPath(original), 'read_secret'],
      [serverPath(original), hashed('read_secret')],
    ];
    for (const [path, name] of routes) {
      const legacy = await client(path);
      expect(`${path} ${name}: ${(await rpcError(legacy.callTool({ name }))).message}`).toMatch(
        /Unknown tool/,
      );
      const modern = await rawCall(t, `${path}-${name}`, { name }, { path });
      expect(`${path} ${name}: ${modern.body.error?.message}`).toMatch(/Unknown tool/);
    }
    await t
      .api()
      .post(`/api/v1/tools/${tools.read_secret!.id}/invoke`)
      .send({ arguments: {} })
      .expect(404);
    expect(called('read_secret')).toBe(0);

    // The listing stays as the policy says, whatever name was tried first.
    const names = (await (await client()).listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('fx-echo');
    expect(names).not.toContain('fx-read_secret');
    expect(names).not.toContain(hashed('read_secret'));
  });

  it('a policy over the arguments tried first does not change the name the deny reads', async () => {
    const policy = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'args-first',
        expression: "has(args.ticket) && args.ticket == 'ok'",
        effect: 'allow',
        priority: -10,
      })
      .expect(201);
    try {
      const legacy = await client(serverPath(onlyEcho));
      for (const args of [{}, { ticket: 'no' }]) {
        const error = await rpcError(
          legacy.callTool({ name: hashed('read_secret'), arguments: args }),
        );
        expect(error.message).toMatch(/Unknown tool/);
      }
      const modern = await rawCall(
        t,
        'args-first',
        { name: hashed('read_secret'), arguments: { ticket: 'no' } },
        { path: serverPath(onlyEcho) },
      );
      expect(modern.body.error?.message).toMatch(/Unknown tool/);
      expect(called('read_secret')).toBe(0);
    } finally {
      await t
        .api()
        .delete(`/api/v1/policies/${policy.body.id as string}`)
        .expect(204);
    }
  });

  it('an approval holds under the hashed name, on a server that holds only another tool', async () => {
    const mute = await client(serverPath(onlyReadTable));
    const refused = await rpcError(mute.callTool({ name: hashed('drop_table') }));
    expect(refused.message).toMatch(/destructive-needs-a-yes.*cannot be asked/);
    const modern = await rawCall(
      t,
      'hashed-drop',
      { name: hashed('drop_table') },
      { path: serverPath(onlyReadTable), capabilities: {} },
    );
    expect(modern.body.error).toMatchObject({ code: -32021 });
    expect(called('drop_table')).toBe(0);
  });

  describe("an operator's overrides on her team's server", () => {
    let teamServer: string;
    const override = (toolId: string, body: Record<string, unknown>, token = operator.token) =>
      request(t.baseUrl)
        .put(`/api/v1/servers/${teamServer}/tool-overrides/${toolId}`)
        .set('Authorization', `Bearer ${token}`)
        .send(body);

    beforeAll(async () => {
      teamServer = await server(
        {
          name: 'red-server',
          teamId: red,
          toolIds: [tools.drop_table!.id, tools.read_secret!.id, tools.echo!.id],
        },
        operator.token,
      );
    });

    it('may not make a tool look less cautious, and an admin who does lifts no policy', async () => {
      const weaker = await override(tools.drop_table!.id, {
        annotations: { destructiveHint: false },
      }).expect(403);
      expect(weaker.body.detail).toMatch(/more cautious, never less.*destructiveHint: false/);
      await override(tools.echo!.id, { annotations: { readOnlyHint: true } }).expect(403);

      // An admin may tell clients so; the policy still reads what the upstream declares.
      await override(
        tools.drop_table!.id,
        { annotations: { destructiveHint: false } },
        t.token,
      ).expect(200);
      const mute = await client(serverPath(teamServer), operator.token);
      const listed = await mute.listTools();
      expect(
        listed.tools.find((tool) => tool.name === 'fx-drop_table')?.annotations?.destructiveHint,
      ).toBe(false);
      expect((await rpcError(mute.callTool({ name: 'fx-drop_table' }))).message).toMatch(
        /cannot be asked/,
      );
      const modern = await rawCall(
        t,
        'overridden-drop',
        { name: 'fx-drop_table' },
        { path: serverPath(teamServer), capabilities: {}, token: operator.token },
      );
      expect(modern.body.error).toMatchObject({ code: -32021 });
      expect(called('drop_table')).toBe(0);
    });

    it('may make a tool look more cautious, and policies then hold it for approval', async () => {
      await override(tools.echo!.id, { annotations: { destructiveHint: true } }).expect(200);
      const mute = await client(serverPath(teamServer), operator.token);
      const before = called('echo');
      expect((await rpcError(mute.callTool({ name: 'fx-echo' }))).message).toMatch(
        /cannot be asked/,
      );
      expect(called('echo')).toBe(before);
    });

    it('may rename a denied tool, which stays denied under its new name', async () => {
      await override(tools.read_secret!.id, { name: 'harmless_lookup' }).expect(200);
      const legacy = await client(serverPath(teamServer), operator.token);
      expect((await legacy.listTools()).tools.map((tool) => tool.name)).not.toContain(
        'harmless_lookup',
      );
      expect((await rpcError(legacy.callTool({ name: 'harmless_lookup' }))).message).toMatch(
        /Unknown tool/,
      );
      const modern = await rawCall(
        t,
        'renamed',
        { name: 'harmless_lookup' },
        { path: serverPath(teamServer), token: operator.token },
      );
      expect(modern.body.error?.message).toMatch(/Unknown tool/);
      expect(called('read_secret')).toBe(0);
    });

    it('may not rename a gateway under a policy, which an admin may', async () => {
      const upstream2 = await startUpstream({
        name: 'team',
        tools: [echoTool('read_secret', 'team')],
      });
      try {
        const gateway = await request(t.baseUrl)
          .post('/api/v1/gateways')
          .set('Authorization', `Bearer ${operator.token}`)
          .send({ name: 'teamfx', url: upstream2.url, teamId: red })
          .expect(201);
        await t
          .api()
          .post('/api/v1/policies')
          .send({
            name: 'team-secrets',
            expression: "tool.name == 'teamfx-read_secret'",
            effect: 'deny',
          })
          .expect(201);
        const renamed = await request(t.baseUrl)
          .patch(`/api/v1/gateways/${gateway.body.id as string}`)
          .set('Authorization', `Bearer ${operator.token}`)
          .send({ name: 'innocent' })
          .expect(403);
        expect(renamed.body.detail).toMatch(/only an admin may rename it/);
        const tools = await t
          .api()
          .get('/api/v1/tools')
          .query({ q: 'teamfx-read_secret' })
          .expect(200);
        expect(tools.body.items.map((tool: { name: string }) => tool.name)).toContain(
          'teamfx-read_secret',
        );
        await t
          .api()
          .patch(`/api/v1/gateways/${gateway.body.id as string}`)
          .send({ name: 'renamed by admin' })
          .expect(200);
      } finally {
        await upstream2.close();
      }
    });

    it('lets policies name the endpoint’s own name as tool.listedName', async () => {
      const dryRun = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({
          user: operator.username,
          serverId: teamServer,
          policies: [
            {
              name: 'by-listed-name',
              expression: "tool.listedName == 'harmless_lookup'",
              effect: 'deny',
            },
          ],
        })
        .expect(200);
      const judged = dryRun.body.tools as { name: string; decision: string }[];
      expect(judged.find((tool) => tool.name === 'harmless_lookup')?.decision).toBe('deny');
      expect(judged.find((tool) => tool.name === 'fx-echo')?.decision).toBe('allow');
    });
  });
});
