import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface ApplyBody {
  applied: boolean;
  plan: string;
  warnings: string[];
  changes: { action: string; kind: string; name: string; fields: { field: string }[] }[];
}

interface ProblemBody {
  code: string;
  detail: string;
}

const HOOKS = [
  { name: 'secret-redaction' },
  // In an order PostgreSQL's jsonb does not keep: applying it again must still change nothing.
  { name: 'size-limit', config: { maxArgumentBytes: 4096, maxResultBytes: 65536 } },
];

/** One gateway, one server with an override and hooks, and a rule that hides a tool from admins. */
function document(upstream: UpstreamFixture) {
  return {
    apiVersion: 'portico/v1',
    teams: [{ name: 'platform' }],
    gateways: [{ name: 'GitHub', url: upstream.url }],
    servers: [
      {
        name: 'Agent',
        tools: ['github-create_issue', 'github-list_repos', 'github-delete_repo'],
        overrides: {
          'github-create_issue': {
            name: 'open_issue',
            description: 'Open an issue in a repository.',
            annotations: { destructiveHint: false },
          },
        } as Record<string, object>,
        hooks: HOOKS as object[],
      },
    ],
    toolRules: [
      { effect: 'deny', tool: 'github-delete_repo', server: 'Agent', role: 'admin' },
      { effect: 'allow', tool: 'github-list_repos', team: 'platform' },
    ] as object[],
  };
}

describe('configuration as code: tool overrides, hooks and tool rules', () => {
  let app: TestApp;
  let upstream: UpstreamFixture;
  let serverId: string;

  beforeAll(async () => {
    upstream = await startUpstream({
      name: 'github',
      tools: [
        echoTool('create_issue', 'github'),
        echoTool('list_repos', 'github'),
        echoTool('delete_repo', 'github'),
      ],
    });
    app = await startTestApp();
  });

  afterAll(async () => {
    await app.close();
    await upstream.close();
  });

  async function apply(body: object, query = ''): Promise<ApplyBody> {
    const response = await app.api().put(`/api/v1/config${query}`).send(body);
    expect(response.status).toBe(200);
    return response.body as ApplyBody;
  }

  async function refused(body: object): Promise<ProblemBody> {
    const before = (await app.api().get('/api/v1/config').expect(200)).body as unknown;
    const response = await app.api().put('/api/v1/config').send(body).expect(422);
    // One transaction: nothing of the document is left behind.
    expect((await app.api().get('/api/v1/config').expect(200)).body).toEqual(before);
    return response.body as ProblemBody;
  }

  async function listedTools() {
    const client = await connectClient(app.baseUrl, {
      token: app.token,
      path: `/servers/${serverId}/mcp`,
    });
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
    }
  }

  it('applies overrides, hooks and rules, which MCP clients see at once', async () => {
    const result = await apply(document(upstream));
    expect(result.warnings).toEqual([]);
    expect(result.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create team platform',
      'create gateway GitHub',
      'create server Agent',
      'create tool rule deny github-delete_repo on "Agent" to role admin',
      'create tool rule allow github-list_repos on every endpoint to team "platform"',
    ]);
    expect(result.plan).toContain('overrides.github-create_issue: {');
    serverId = (
      (await app.api().get('/api/v1/servers').expect(200)).body as { items: { id: string }[] }
    ).items[0]!.id;

    // The admin is denied delete_repo on Agent, and is in no team, so list_repos is hidden too.
    const tools = await listedTools();
    expect(tools.map((tool) => tool.name)).toEqual(['open_issue']);
    expect(tools[0]).toMatchObject({
      description: 'Open an issue in a repository.',
      annotations: { destructiveHint: false },
    });
    const hooks = await app.api().get(`/api/v1/servers/${serverId}/hooks`).expect(200);
    expect(hooks.body).toEqual({ hooks: HOOKS });
    const rules = (await app.api().get('/api/v1/tool-rules').expect(200)).body as {
      items: { effect: string; serverId: string | null; role: string | null }[];
    };
    // Made in one transaction, so in no particular order.
    expect(rules.items.map((rule) => [rule.effect, rule.serverId, rule.role]).sort()).toEqual([
      ['allow', null, null],
      ['deny', serverId, 'admin'],
    ]);
  });

  it('is idempotent, and exports what applies back to no changes', async () => {
    expect((await apply(document(upstream))).changes).toEqual([]);
    const exported = (await app.api().get('/api/v1/config').expect(200)).body as {
      servers: object[];
      toolRules: object[];
    };
    expect(exported.servers[0]).toMatchObject({
      overrides: {
        'github-create_issue': {
          name: 'open_issue',
          description: 'Open an issue in a repository.',
          annotations: { destructiveHint: false },
        },
      },
      hooks: HOOKS,
    });
    expect(exported.toolRules).toEqual([
      { effect: 'deny', tool: 'github-delete_repo', server: 'Agent', role: 'admin' },
      { effect: 'allow', tool: 'github-list_repos', team: 'platform' },
    ]);
    expect((await apply(exported)).plan).toMatch(/^No changes/);
  });

  it('prints a dry run of changed overrides, hooks and rules as a diff, and changes nothing', async () => {
    const changed = document(upstream);
    changed.servers[0]!.overrides = {
      'github-create_issue': { name: 'open_issue', description: 'File a bug.' },
      'github-list_repos': { title: 'Repositories' },
    };
    changed.servers[0]!.hooks = [{ name: 'secret-redaction' }];
    changed.toolRules = [changed.toolRules[0]!];
    const plan = (await apply(changed, '?dryRun=true&prune=true')).plan;
    expect(plan).toContain('~ server "Agent"');
    expect(plan).toContain(
      '    overrides.github-create_issue: {"name":"open_issue","description":"Open an issue in a repository.","annotations":{"destructiveHint":false}} -> {"name":"open_issue","description":"File a bug."}',
    );
    expect(plan).toContain('    overrides.github-list_repos: (unset) -> {"title":"Repositories"}');
    expect(plan).toContain('    hooks: [');
    expect(plan).toContain(
      '- tool rule "allow github-list_repos on every endpoint to team \\"platform\\""',
    );
    expect((await apply(document(upstream))).changes).toEqual([]);
  });

  it('leaves rules alone without a toolRules section, and prunes them and overrides with --prune', async () => {
    const { toolRules: _rules, ...withoutRules } = document(upstream);
    withoutRules.servers[0]!.overrides = {};
    const first = await apply(withoutRules, '?prune=true');
    expect(first.changes.map((c) => `${c.action} ${c.kind}`)).toEqual(['update server']);
    expect(first.plan).toContain('    overrides.github-create_issue: {');
    expect(first.plan).toContain('-> (unset)');
    expect(
      ((await app.api().get('/api/v1/tool-rules').expect(200)).body as { total: number }).total,
    ).toBe(2);

    const pruned = await apply({ ...withoutRules, toolRules: [] }, '?prune=true');
    expect(pruned.changes.map((c) => `${c.action} ${c.kind}`)).toEqual([
      'delete tool rule',
      'delete tool rule',
    ]);
    expect(
      ((await app.api().get('/api/v1/tool-rules').expect(200)).body as { total: number }).total,
    ).toBe(0);
    expect((await listedTools()).map((tool) => tool.name).sort()).toEqual([
      'github-create_issue',
      'github-delete_repo',
      'github-list_repos',
    ]);
    await apply(document(upstream));
  });

  it('refuses unknown tools, servers and teams in rules and overrides of non-members (422), all or nothing', async () => {
    const cases: [(doc: ReturnType<typeof document>) => void, RegExp][] = [
      [
        (doc) => (doc.toolRules = [{ effect: 'deny', tool: 'github-nope' }]),
        /the tool 'github-nope'/,
      ],
      [
        (doc) => (doc.toolRules = [{ effect: 'deny', tool: 'github-list_repos', server: 'Nope' }]),
        /the server 'Nope'/,
      ],
      [
        (doc) => (doc.toolRules = [{ effect: 'allow', tool: 'github-list_repos', team: 'nope' }]),
        /the team 'nope'/,
      ],
      [
        (doc) => (doc.servers[0]!.overrides = { 'github-nope': { title: 'Nope' } }),
        /overrides 'github-nope', which is not among its tools/,
      ],
    ];
    for (const [breakIt, message] of cases) {
      const broken = document(upstream);
      broken.teams.push({ name: 'newcomers' });
      breakIt(broken);
      const problem = await refused(broken);
      expect(problem.code).toBe('config.unknown_reference');
      expect(problem.detail).toMatch(message);
    }
    const twice = document(upstream);
    twice.toolRules.push(twice.toolRules[0]!);
    expect((await refused(twice)).detail).toMatch(/is named twice/);
    const badField = document(upstream);
    badField.toolRules = [{ effect: 'maybe', tool: 'github-list_repos' }];
    expect((await refused(badField)).code).toBe('config.invalid');
  });

  it('refuses an override that makes two members show under one name, as the REST API does', async () => {
    const clash = document(upstream);
    clash.servers[0]!.overrides = { 'github-create_issue': { name: 'github-list_repos' } };
    const problem = await refused(clash);
    expect(problem.code).toBe('config.invalid');
    expect(problem.detail).toContain(
      "Server 'Agent': These member tools would show under one name",
    );

    const tools = (await app.api().get('/api/v1/tools').expect(200)).body as {
      items: { id: string; originalName: string }[];
    };
    const createIssue = tools.items.find((tool) => tool.originalName === 'create_issue')!;
    await app
      .api()
      .put(`/api/v1/servers/${serverId}/tool-overrides/${createIssue.id}`)
      .send({ name: 'github-list_repos' })
      .expect(409);
  });

  it('checks hooks as PUT /servers/:id/hooks does, with the same message', async () => {
    for (const hooks of [
      [{ name: 'nope' }],
      [{ name: 'size-limit', config: { maxResultBytes: -1 } }],
    ]) {
      const rest = await app.api().put(`/api/v1/servers/${serverId}/hooks`).send({ hooks });
      expect(rest.status).toBe(422);
      const bad = document(upstream);
      bad.servers[0]!.hooks = hooks;
      const problem = await refused(bad);
      expect(problem.code).toBe('config.invalid');
      expect(problem.detail).toBe(`Server 'Agent' hooks: ${(rest.body as ProblemBody).detail}`);
    }
  });
});
