import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, rpcError } from '../support/mcp-client';
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

const POLICIES = [
  {
    name: 'ask-before-urgent-issues',
    expression: 'tool.originalName == "create_issue" && args.title.contains("urgent")',
    effect: 'approve',
    priority: 50,
    approval: { message: 'An urgent issue', rememberSeconds: 60 },
  },
  {
    name: 'no-deleting-for-admins',
    expression: 'tool.originalName == "delete_repo" && principal.role == "admin"',
    effect: 'deny',
    priority: 100,
    server: 'Agent',
  },
  {
    name: 'repos-for-platform',
    description: 'Only the platform team lists repositories.',
    expression: 'tool.name == "github-list_repos" && !("platform" in principal.teams)',
    effect: 'deny',
    priority: 100,
  },
];

/** One gateway, one server with an override and hooks, and policies that hide tools from admins. */
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
    policies: POLICIES.map((policy) => ({ ...policy })) as Record<string, unknown>[],
  };
}

describe('configuration as code: tool overrides, hooks and policies', () => {
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

  it('applies overrides, hooks and policies, which MCP clients see at once', async () => {
    const result = await apply(document(upstream));
    expect(result.warnings).toEqual([]);
    expect(result.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create team platform',
      'create gateway GitHub',
      'create server Agent',
      'create policy ask-before-urgent-issues',
      'create policy no-deleting-for-admins',
      'create policy repos-for-platform',
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
    const policies = (await app.api().get('/api/v1/policies').expect(200)).body as {
      items: { name: string; serverId: string | null; approval: unknown }[];
    };
    expect(policies.items.map((policy) => [policy.name, policy.serverId, policy.approval])).toEqual(
      [
        ['ask-before-urgent-issues', null, { message: 'An urgent issue', rememberSeconds: 60 }],
        ['no-deleting-for-admins', serverId, null],
        ['repos-for-platform', null, null],
      ],
    );
  });

  it('is idempotent, and exports what applies back to no changes', async () => {
    expect((await apply(document(upstream))).changes).toEqual([]);
    const exported = (await app.api().get('/api/v1/config').expect(200)).body as {
      servers: object[];
      policies: object[];
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
    expect(exported.policies).toEqual(POLICIES);
    expect(exported).not.toHaveProperty('toolRules');
    expect((await apply(exported)).plan).toMatch(/^No changes/);
  });

  it('prints a dry run of changed overrides, hooks and policies as a diff, and changes nothing', async () => {
    const changed = document(upstream);
    changed.servers[0]!.overrides = {
      'github-create_issue': { name: 'open_issue', description: 'File a bug.' },
      'github-list_repos': { title: 'Repositories' },
    };
    changed.servers[0]!.hooks = [{ name: 'secret-redaction' }];
    changed.policies = [changed.policies[1]!, { ...changed.policies[2]!, priority: 7 }];
    const plan = (await apply(changed, '?dryRun=true&prune=true')).plan;
    expect(plan).toContain('~ server "Agent"');
    expect(plan).toContain(
      '    overrides.github-create_issue: {"name":"open_issue","description":"Open an issue in a repository.","annotations":{"destructiveHint":false}} -> {"name":"open_issue","description":"File a bug."}',
    );
    expect(plan).toContain('    overrides.github-list_repos: (unset) -> {"title":"Repositories"}');
    expect(plan).toContain('    hooks: [');
    expect(plan).toContain('~ policy "repos-for-platform"\n    priority: 100 -> 7');
    expect(plan).toContain('- policy "ask-before-urgent-issues"');
    expect((await apply(document(upstream))).changes).toEqual([]);
  });

  it('decides a call by its arguments under an applied policy', async () => {
    const client = await connectClient(app.baseUrl, {
      token: app.token,
      path: `/servers/${serverId}/mcp`,
    });
    try {
      const asked = await rpcError(
        client.callTool({ name: 'open_issue', arguments: { title: 'urgent: fix it' } }),
      );
      expect(asked.message).toContain(
        "Policy 'ask-before-urgent-issues' needs your approval for calls of",
      );
      const calm = await client.callTool({ name: 'open_issue', arguments: { title: 'later' } });
      expect(JSON.stringify(calm)).toContain('github:create_issue');
    } finally {
      await client.close();
    }
  });

  it('leaves policies alone without a policies section, and prunes them and overrides with --prune', async () => {
    const { policies: _policies, ...withoutPolicies } = document(upstream);
    withoutPolicies.servers[0]!.overrides = {};
    const first = await apply(withoutPolicies, '?prune=true');
    expect(first.changes.map((c) => `${c.action} ${c.kind}`)).toEqual(['update server']);
    expect(first.plan).toContain('    overrides.github-create_issue: {');
    expect(first.plan).toContain('-> (unset)');
    expect(
      ((await app.api().get('/api/v1/policies').expect(200)).body as { total: number }).total,
    ).toBe(3);

    const pruned = await apply({ ...withoutPolicies, policies: [] }, '?prune=true');
    expect(pruned.changes.map((c) => `${c.action} ${c.kind}`)).toEqual([
      'delete policy',
      'delete policy',
      'delete policy',
    ]);
    expect(
      ((await app.api().get('/api/v1/policies').expect(200)).body as { total: number }).total,
    ).toBe(0);
    expect((await listedTools()).map((tool) => tool.name).sort()).toEqual([
      'github-create_issue',
      'github-delete_repo',
      'github-list_repos',
    ]);
    await apply(document(upstream));
  });

  it('says what a pruned server or gateway takes with it that its sections do not show', async () => {
    const withoutAgent = { ...document(upstream), servers: [] };
    const plan = await apply(withoutAgent, '?dryRun=true&prune=true');
    expect(plan.plan).toContain('- server "Agent"');
    expect(plan.warnings).toContain("Server 'Agent' is deleted, and with it 1 of its policies.");
    const withoutGateway = { ...document(upstream), gateways: [] };
    const gone = await apply(withoutGateway, '?dryRun=true&prune=true');
    expect(gone.warnings).toContain(
      "Gateway 'GitHub' is deleted, and with it 3 server memberships of its tools.",
    );
  });

  it('applies an older document’s toolRules as the policies they mean, with a warning', async () => {
    const { policies: _policies, ...older } = document(upstream);
    await apply({ ...older, policies: [] }, '?prune=true');
    const legacy = {
      ...older,
      toolRules: [
        { effect: 'deny', tool: 'github-delete_repo', server: 'Agent', role: 'admin' },
        { effect: 'allow', tool: 'github-list_repos', team: 'platform' },
      ],
    };
    const result = await apply(legacy, '?prune=true');
    expect(result.warnings).toEqual([
      "The toolRules section is deprecated: its 2 rule(s) were applied as 3 policies named 'rule-…'. Write them under 'policies' (an export does).",
    ]);
    expect(result.changes.map((c) => `${c.action} ${c.kind} ${c.name}`).sort()).toEqual([
      'create policy rule-github-delete_repo-deny-1',
      'create policy rule-github-list_repos-allow-1',
      'create policy rule-github-list_repos-others-denied-1',
    ]);
    // What the rules meant: delete_repo denied to admins on Agent, list_repos to the platform only.
    expect((await listedTools()).map((tool) => tool.name)).toEqual(['open_issue']);
    expect((await apply(legacy, '?prune=true')).changes).toEqual([]);
    const exported = (await app.api().get('/api/v1/config').expect(200)).body as {
      policies: { name: string; expression: string }[];
    };
    expect(exported).not.toHaveProperty('toolRules');
    expect(exported.policies.map((policy) => policy.name)).toEqual([
      'rule-github-delete_repo-deny-1',
      'rule-github-list_repos-allow-1',
      'rule-github-list_repos-others-denied-1',
    ]);
    expect((await apply(exported, '?prune=true')).changes).toEqual([]);
    const back = await apply(document(upstream), '?prune=true');
    expect(back.changes.filter((c) => c.action === 'delete')).toHaveLength(3);
  });

  it('refuses unknown servers and teams, policies that do not compile, and overrides of non-members (422), all or nothing', async () => {
    const cases: [(doc: ReturnType<typeof document>) => void, string, RegExp][] = [
      [
        (doc) => (doc.policies[1]!.server = 'Nope'),
        'config.unknown_reference',
        /the server 'Nope'/,
      ],
      [
        (doc) => (doc.policies[0]!.expression = 'tool.nme == "x"'),
        'config.invalid',
        /Policy 'ask-before-urgent-issues': the expression does not compile \(line 1, column 6\): No such key: nme/,
      ],
      [
        (doc) => (doc.policies[1]!.approval = { message: 'no' }),
        'config.invalid',
        /only an `approve` policy takes/,
      ],
      [(doc) => (doc.policies[1]!.effect = 'maybe'), 'config.invalid', /policies\.1\.effect/],
      [(doc) => doc.policies.push(doc.policies[0]!), 'config.invalid', /is named twice/],
      [
        (doc) => Object.assign(doc, { toolRules: [{ effect: 'deny', tool: 'github-nope' }] }),
        'config.unknown_reference',
        /the tool 'github-nope'/,
      ],
      [
        (doc) =>
          Object.assign(doc, {
            toolRules: [{ effect: 'allow', tool: 'github-list_repos', team: 'nope' }],
          }),
        'config.unknown_reference',
        /the team 'nope'/,
      ],
      [
        (doc) => (doc.servers[0]!.overrides = { 'github-nope': { title: 'Nope' } }),
        'config.unknown_reference',
        /overrides 'github-nope', which is not among its tools/,
      ],
    ];
    for (const [breakIt, code, message] of cases) {
      const broken = document(upstream);
      broken.teams.push({ name: 'newcomers' });
      breakIt(broken);
      const problem = await refused(broken);
      expect(problem.code).toBe(code);
      expect(problem.detail).toMatch(message);
    }
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
