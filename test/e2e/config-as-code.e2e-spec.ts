import Ajv2020 from 'ajv/dist/2020';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { connectClient } from '../support/mcp-client';
import { tempDataDir } from '../support/temp-dir';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';
import { contentHash } from '../../src/tools/tool-hash';

const TOKEN = 'upstream-secret-token-1';
const KEY = 'upstream-api-key-2';

interface ApplyBody {
  applied: boolean;
  plan: string;
  warnings: string[];
  changes: { action: string; kind: string; name: string; fields: { field: string }[] }[];
}

function document(github: UpstreamFixture, jira: UpstreamFixture, extra: object = {}) {
  return {
    apiVersion: 'portico/v1',
    teams: [{ name: 'platform', description: 'Platform team' }],
    gateways: [
      {
        name: 'GitHub',
        url: github.url,
        team: 'platform',
        auth: { type: 'bearer', token: { fromEnv: 'CONFIG_E2E_GITHUB_TOKEN' } },
      },
      {
        name: 'Jira',
        url: jira.url,
        auth: { type: 'headers', headers: { 'X-API-Key': { fromFile: 'jira/api-key' } } },
      },
    ],
    servers: [
      {
        name: 'Support agent',
        team: 'platform',
        tools: ['github-create_issue', 'jira-find'],
        toolSearch: { enabled: true, alwaysLoaded: ['github-create_issue'] },
      },
    ],
    ...extra,
  };
}

describe('configuration as code', () => {
  let app: TestApp;
  let github: UpstreamFixture;
  let jira: UpstreamFixture;
  let secretsDir: string;

  beforeAll(async () => {
    process.env.CONFIG_E2E_GITHUB_TOKEN = TOKEN;
    secretsDir = tempDataDir();
    mkdirSync(join(secretsDir, 'jira'));
    writeFileSync(join(secretsDir, 'jira', 'api-key'), `${KEY}\n`);
    github = await startUpstream({
      name: 'github',
      tools: [echoTool('create_issue', 'github'), echoTool('list_repos', 'github')],
      requiredHeaders: { authorization: `Bearer ${TOKEN}` },
    });
    jira = await startUpstream({
      name: 'jira',
      tools: [echoTool('find', 'jira')],
      requiredHeaders: { 'x-api-key': KEY },
    });
    app = await startTestApp({ env: { CONFIG_SECRETS_DIR: secretsDir } });
  });

  afterAll(async () => {
    delete process.env.CONFIG_E2E_GITHUB_TOKEN;
    await app.close();
    await github.close();
    await jira.close();
  });

  async function apply(body: object, query = ''): Promise<ApplyBody> {
    const response = await app.api().put(`/api/v1/config${query}`).send(body);
    expect(response.status).toBe(200);
    return response.body as ApplyBody;
  }

  it('checks a settings block but says it applies at the next start, from CONFIG_FILE', async () => {
    const result = await apply({
      apiVersion: 'portico/v1',
      settings: { upstream: { timeoutMs: 5000 } },
    });
    expect(result.changes).toEqual([]);
    expect(result.warnings).toEqual([
      'The settings block was checked but not applied: replicas read it from CONFIG_FILE when they start.',
    ]);
    const refused = await app
      .api()
      .put('/api/v1/config')
      .send({ apiVersion: 'portico/v1', settings: { upstream: { timeoutMs: 1 } } });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('settings.upstream.timeoutMs');
  });

  it('creates what the document describes, syncs the gateways with the referenced credentials, and adds the members after the sync', async () => {
    const result = await apply(document(github, jira));
    expect(result.applied).toBe(true);
    expect(result.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create team platform',
      'create gateway GitHub',
      'create gateway Jira',
      'create server Support agent',
    ]);
    expect(result.warnings).toEqual([]);
    expect(result.plan).toContain('+ gateway "GitHub"');
    expect(result.plan).toContain('+ tools: github-create_issue');
    expect(JSON.stringify(result)).not.toContain(TOKEN);

    const servers = (await app.api().get('/api/v1/servers').expect(200)).body as {
      items: { id: string; name: string; toolSearch: { alwaysLoaded: string[] } }[];
    };
    const server = servers.items.find((s) => s.name === 'Support agent')!;
    expect(server.toolSearch.alwaysLoaded).toEqual(['github-create_issue']);
    const client = await connectClient(app.baseUrl, {
      token: app.token,
      path: `/servers/${server.id}/mcp`,
    });
    try {
      // Tool search as the document set it: the always-loaded tool is listed, the other deferred.
      const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(listed).toEqual(['github-create_issue', 'tool_search']);
      const issue = await client.callTool({ name: 'github-create_issue', arguments: {} });
      expect(issue).toMatchObject({ structuredContent: { upstream: 'github' } });
      await client.callTool({ name: 'tool_search', arguments: { query: 'select:jira-find' } });
      const found = await client.callTool({ name: 'jira-find', arguments: {} });
      expect(found).toMatchObject({ structuredContent: { upstream: 'jira', tool: 'find' } });
    } finally {
      await client.close();
    }
  });

  it('is idempotent: the same document again changes nothing', async () => {
    const result = await apply(document(github, jira));
    expect(result.changes).toEqual([]);
    expect(result.plan).toMatch(/^No changes/);
  });

  it('prints a dry run as a diff and changes nothing; --prune deletes what the file no longer names', async () => {
    await app.api().post('/api/v1/servers').send({ name: 'Hand made' }).expect(201);
    const changed = document(github, jira);
    changed.servers[0]!.tools = ['github-create_issue', 'github-list_repos'];
    const before = (await app.api().get('/api/v1/config').expect(200)).body as unknown;

    const plan = await apply(changed, '?dryRun=true&prune=true');
    expect(plan.applied).toBe(false);
    expect(plan.plan).toContain('~ server "Support agent"');
    expect(plan.plan).toContain('    + tools: github-list_repos');
    expect(plan.plan).toContain('    - tools: jira-find');
    expect(plan.plan).toContain('- server "Hand made"');
    expect((await app.api().get('/api/v1/config').expect(200)).body).toEqual(before);

    const withoutPrune = await apply(changed, '?dryRun=true');
    expect(withoutPrune.plan).not.toContain('Hand made');
    // A flag that is not `true` or `false` as written is refused, never taken for `false`.
    for (const query of [
      'dryRun=1',
      'dryRun=TRUE',
      'dryRun',
      'dryRun=on',
      'dryRun=true&dryRun=false',
      'prune=1',
    ])
      await app.api().put(`/api/v1/config?${query}`).send(changed).expect(422);
    expect((await app.api().get('/api/v1/config').expect(200)).body).toEqual(before);
    expect((await apply(changed, '?dryRun=true&prune=false')).applied).toBe(false);

    const applied = await apply(changed, '?prune=true');
    expect(applied.changes.map((c) => `${c.action} ${c.name}`)).toEqual([
      'update Support agent',
      'delete Hand made',
    ]);
    const names = (
      (await app.api().get('/api/v1/servers').expect(200)).body as {
        items: { name: string }[];
      }
    ).items.map((s) => s.name);
    expect(names).toEqual(['Support agent']);
  });

  it('applies all or nothing: a document that fails half-way leaves the registry as it was', async () => {
    const before = (await app.api().get('/api/v1/config').expect(200)).body as unknown;
    const broken = document(github, jira, {
      teams: [{ name: 'platform', description: 'Platform team' }, { name: 'newcomers' }],
    });
    broken.servers.push({
      name: 'Broken',
      team: 'newcomers',
      tools: ['github-no_such_tool'],
      toolSearch: { enabled: false, alwaysLoaded: [] },
    });
    const response = await app.api().put('/api/v1/config').send(broken).expect(422);
    expect(response.body).toMatchObject({ code: 'config.unknown_reference' });
    expect((response.body as { detail: string }).detail).toContain("tools 'github-no_such_tool'");
    expect((await app.api().get('/api/v1/config').expect(200)).body).toEqual(before);
  });

  it('applies a new gateway whose sync fails with its members as a warning, not a failure after the commit', async () => {
    const dead = 'http://127.0.0.1:9/mcp';
    try {
      const result = await apply({
        apiVersion: 'portico/v1',
        gateways: [{ name: 'Down', url: dead }],
        servers: [{ name: 'Waiting', tools: ['down-some_tool'] }],
      });
      expect(result.applied).toBe(true);
      expect(result.warnings).toContain(
        "Server 'Waiting': tools 'down-some_tool' is not in its gateway after its sync; apply again once it is.",
      );
      // Applied again while the gateway is still down, the member is refused before anything
      // commits: that pass names no gateway waiting for a first sync.
      const again = await app
        .api()
        .put('/api/v1/config')
        .send({
          apiVersion: 'portico/v1',
          gateways: [{ name: 'Down', url: dead }],
          servers: [{ name: 'Waiting', tools: ['down-some_tool'] }],
        })
        .expect(422);
      expect(again.body).toMatchObject({ code: 'config.unknown_reference' });
    } finally {
      const servers = (await app.api().get('/api/v1/servers').expect(200)).body as {
        items: { id: string; name: string }[];
      };
      const waiting = servers.items.find((server) => server.name === 'Waiting');
      if (waiting) await app.api().delete(`/api/v1/servers/${waiting.id}`).expect(204);
      const gateways = (await app.api().get('/api/v1/gateways').expect(200)).body as {
        items: { id: string; name: string }[];
      };
      const down = gateways.items.find((gateway) => gateway.name === 'Down');
      if (down) await app.api().delete(`/api/v1/gateways/${down.id}`).expect(204);
    }
  });

  it('refuses inline credentials, unset references and Portico’s own settings (422)', async () => {
    const inline = document(github, jira);
    (inline.gateways[0]!.auth as unknown as { token: string }).token = 'inline';
    const invalid = await app.api().put('/api/v1/config').send(inline).expect(422);
    expect(invalid.body).toMatchObject({ code: 'config.invalid' });

    // Set or not, what Portico and its runtime read for themselves is never a credential.
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-vendor-key=secret';
    process.env.PGPASSWORD = 'secret';
    try {
      for (const fromEnv of [
        'CONFIG_E2E_UNSET',
        'ENCRYPTION_KEY',
        'OTEL_EXPORTER_OTLP_HEADERS',
        'PGPASSWORD',
        'OIDC_ISSUER',
        'MCP_REGISTRIES',
        'PORTICO_ANYTHING',
      ]) {
        const unset = document(github, jira);
        unset.gateways[0]!.auth.token = { fromEnv };
        const refused = await app.api().put('/api/v1/config').send(unset).expect(422);
        expect(refused.body).toMatchObject({ code: 'config.secret_unavailable' });
      }
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
      delete process.env.PGPASSWORD;
    }
    const outside = document(github, jira);
    outside.gateways[1]!.auth = {
      type: 'headers',
      headers: { 'X-API-Key': { fromFile: '/etc/hostname' } },
    };
    const escaped = await app.api().put('/api/v1/config').send(outside).expect(422);
    expect((escaped.body as { detail: string }).detail).toMatch(/cannot be read|outside/);
  });

  it('exports YAML that names credentials without their values, and applies back to no changes', async () => {
    const response = await app.api().get('/api/v1/config?format=yaml').expect(200);
    expect(response.headers['content-type']).toMatch(/application\/yaml/);
    const text = response.text;
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(KEY);
    const exported = parseYaml(text) as ReturnType<typeof document>;
    expect(exported.gateways[0]).toMatchObject({
      name: 'GitHub',
      auth: { type: 'bearer', token: { fromEnv: 'GITHUB_TOKEN' } },
    });
    expect(exported.gateways[1]!.auth).toEqual({
      type: 'headers',
      headers: { 'X-API-Key': { fromEnv: 'JIRA_X_API_KEY' } },
    });
    // The operator fills the placeholders; then the export is the registry again.
    process.env.GITHUB_TOKEN = TOKEN;
    process.env.JIRA_X_API_KEY = KEY;
    try {
      const again = await apply(parseYaml(stringifyYaml(exported)) as object);
      expect(again.changes).toEqual([]);
    } finally {
      delete process.env.GITHUB_TOKEN;
      delete process.env.JIRA_X_API_KEY;
    }
  });

  it('publishes the JSON Schema without sign-in, and the document routes to admins only', async () => {
    const schema = await request(app.baseUrl).get('/api/v1/config/schema').expect(200);
    expect(schema.body).toMatchObject({ $id: 'urn:portico:config:v1' });
    await request(app.baseUrl).get('/api/v1/config').expect(401);
    await request(app.baseUrl).put('/api/v1/config').send({}).expect(401);
  });

  it('moves records between a team and global, and exports a document the published schema accepts', async () => {
    const moved = document(github, jira);
    moved.gateways[1]!.team = 'platform';
    delete (moved.servers[0] as { team?: string }).team;
    moved.servers[0]!.tools = ['github-create_issue', 'github-list_repos'];
    const result = await apply(moved);
    expect(result.plan).toContain('~ gateway "Jira"\n    team: null -> "platform"');
    expect(result.plan).toContain('~ server "Support agent"\n    team: "platform" -> null');
    expect((await apply(moved)).changes).toEqual([]);

    const exported = (await app.api().get('/api/v1/config').expect(200)).body as object;
    const schema = (await request(app.baseUrl).get('/api/v1/config/schema').expect(200))
      .body as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(exported)).toBe(true);
    expect(exported).toMatchObject({
      gateways: [
        { name: 'GitHub', team: 'platform' },
        { name: 'Jira', team: 'platform' },
      ],
      servers: [{ name: 'Support agent' }],
    });
    expect((exported as { servers: object[] }).servers[0]).not.toHaveProperty('team');
  });

  it('applies rate limits by server and tool name, enforced at once, and prunes them', async () => {
    const rateLimits = [
      {
        per: 'token',
        server: 'Support agent',
        tool: 'github-create_issue',
        points: 1,
        windowSeconds: 3600,
      },
      { per: 'user', points: 1000, windowSeconds: 60 },
    ];
    const limited = document(github, jira, { rateLimits });
    limited.servers[0]!.tools = ['github-create_issue', 'github-list_repos'];
    delete (limited.servers[0] as { team?: string }).team;
    limited.gateways[1]!.team = 'platform';
    const result = await apply(limited);
    expect(result.changes.map((c) => `${c.action} ${c.name}`)).toEqual([
      'create per token on "Support agent" for github-create_issue',
      'create per user on every endpoint for all tools',
    ]);
    expect((await apply(limited)).changes).toEqual([]);

    const servers = (await app.api().get('/api/v1/servers').expect(200)).body as {
      items: { id: string }[];
    };
    const client = await connectClient(app.baseUrl, {
      token: app.token,
      path: `/servers/${servers.items[0]!.id}/mcp`,
    });
    try {
      const first = await client.callTool({ name: 'github-create_issue', arguments: {} });
      expect(first.isError).toBeFalsy();
      const second = await client.callTool({ name: 'github-create_issue', arguments: {} }).then(
        (r) => JSON.stringify(r),
        (error: Error) => error.message,
      );
      expect(second).toMatch(/rate|limit|too many/i);
    } finally {
      await client.close();
    }

    const exported = (await app.api().get('/api/v1/config').expect(200)).body as {
      rateLimits: unknown[];
    };
    expect(exported.rateLimits).toEqual([
      { per: 'user', points: 1000, windowSeconds: 60 },
      {
        per: 'token',
        server: 'Support agent',
        tool: 'github-create_issue',
        points: 1,
        windowSeconds: 3600,
      },
    ]);
    // While its tool is away (gone from the upstream's list for a sync) the limit is still there,
    // under the tool's name: exported as before, and applied back to no changes.
    const gateways = (await app.api().get('/api/v1/gateways').expect(200)).body as {
      items: { id: string; name: string }[];
    };
    const githubId = gateways.items.find((gateway) => gateway.name === 'GitHub')!.id;
    const createIssue = github.tools.get('create_issue')!;
    github.removeTool('create_issue');
    await app.api().post(`/api/v1/gateways/${githubId}/sync`).expect(200);
    const away = (await app.api().get('/api/v1/config').expect(200)).body as typeof exported;
    expect(away.rateLimits).toEqual(exported.rateLimits);
    const onlyLimits = { apiVersion: 'portico/v1', rateLimits };
    expect((await apply(onlyLimits)).changes).toEqual([]);
    github.setTool(createIssue);
    await app.api().post(`/api/v1/gateways/${githubId}/sync`).expect(200);

    const pruned = await apply({ ...limited, rateLimits: [] }, '?prune=true');
    expect(
      pruned.changes.filter((c) => c.kind === 'rate limit').map((c) => `${c.action} ${c.name}`),
    ).toEqual([
      'delete per user on every endpoint for all tools',
      'delete per token on "Support agent" for github-create_issue',
    ]);
  });

  it('exports pinning settings and pins, applies them back to no changes, and quarantines what differs from a pin', async () => {
    type Exported = { gateways: { name: string; pins?: { tools: Record<string, string> } }[] };
    type Tool = { id: string; originalName: string; pin: { pinnedHash: string | null } };
    const gateways = (await app.api().get('/api/v1/gateways').expect(200)).body as {
      items: { id: string; name: string }[];
    };
    const githubId = gateways.items.find((gateway) => gateway.name === 'GitHub')!.id;
    await app
      .api()
      .patch(`/api/v1/gateways/${githubId}`)
      .send({ pinning: 'first-sight', quarantineOnFinding: 'medium' })
      .expect(200);
    const toolsOf = async (gatewayId: string) =>
      (
        (await app.api().get('/api/v1/tools').query({ gatewayId }).expect(200)).body as {
          items: Tool[];
        }
      ).items;
    const hashes = Object.fromEntries(
      (await toolsOf(githubId)).map((tool) => [tool.originalName, tool.pin.pinnedHash]),
    );

    process.env.GITHUB_TOKEN = TOKEN;
    process.env.JIRA_X_API_KEY = KEY;
    try {
      const exported = parseYaml(
        (await app.api().get('/api/v1/config?format=yaml').expect(200)).text,
      ) as Exported;
      const pinned = exported.gateways.find((gateway) => gateway.name === 'GitHub')!;
      expect(pinned).toMatchObject({
        pinning: 'first-sight',
        quarantineOnFinding: 'medium',
        pins: { tools: { create_issue: hashes.create_issue, list_repos: hashes.list_repos } },
      });
      expect(exported.gateways.find((gateway) => gateway.name === 'Jira')).not.toHaveProperty(
        'pins',
      );
      expect((await apply(exported)).changes).toEqual([]);

      const other = 'a'.repeat(64);
      const moved = structuredClone(exported);
      moved.gateways.find((gateway) => gateway.name === 'GitHub')!.pins!.tools.create_issue = other;
      const result = await apply(moved);
      expect(result.changes).toEqual([
        {
          action: 'update',
          kind: 'gateway',
          name: 'GitHub',
          fields: [{ field: 'pins.tools.create_issue', from: hashes.create_issue, to: other }],
        },
      ]);
      expect(result.warnings.join('\n')).toContain('create_issue: the stored definition is not');
      const queue = await app.api().get('/api/v1/quarantine').query({ gatewayId: githubId });
      expect(queue.body).toMatchObject({
        total: 1,
        items: [{ name: 'github-create_issue', reason: 'changed', changed: false }],
      });

      // The document's own pin again: the stored definition is the pinned one, and is served.
      expect((await apply(exported)).changes).toHaveLength(1);
      const released = await app.api().get('/api/v1/quarantine').query({ gatewayId: githubId });
      expect(released.body).toMatchObject({ total: 0 });
      expect((await apply(exported)).changes).toEqual([]);

      // A new gateway's pins wait for its first sync, then hold back what differs from them.
      const fresh = await startUpstream({
        name: 'fresh',
        tools: [echoTool('good', 'fresh'), echoTool('bad', 'fresh')],
      });
      try {
        const good = contentHash({
          description: 'good of fresh',
          inputSchema: { type: 'object', properties: {} },
        });
        const withNew = structuredClone(exported);
        withNew.gateways.push({
          name: 'Fresh',
          url: fresh.url,
          pins: { tools: { good, bad: 'b'.repeat(64) } },
        } as Exported['gateways'][number]);
        const created = await apply(withNew);
        expect(created.warnings).toEqual([
          "Gateway 'Fresh' pins.tools.bad: the stored definition is not the pinned one; the tool is quarantined until approved.",
        ]);
        const freshId = (
          (await app.api().get('/api/v1/gateways').expect(200)).body as {
            items: { id: string; name: string }[];
          }
        ).items.find((gateway) => gateway.name === 'Fresh')!.id;
        const pins = Object.fromEntries(
          (await toolsOf(freshId)).map((tool) => [tool.originalName, tool.pin]),
        );
        expect(pins.good).toMatchObject({ pinnedHash: good, contentHash: good, quarantine: null });
        expect(pins.bad).toMatchObject({
          pinnedHash: 'b'.repeat(64),
          quarantine: { reason: 'changed', heldHash: null },
        });
        expect((await apply(withNew)).changes).toEqual([]);
        await apply(exported, '?prune=true');
      } finally {
        await fresh.close();
      }
    } finally {
      delete process.env.GITHUB_TOKEN;
      delete process.env.JIRA_X_API_KEY;
    }
  });
});

describe('CONFIG_FILE at start-up', () => {
  let upstream: UpstreamFixture;
  let file: string;

  beforeAll(async () => {
    upstream = await startUpstream({ tools: [echoTool('now', 'clock')] });
    file = join(tempDataDir(), 'portico.yaml');
    writeFileSync(
      file,
      stringifyYaml({
        apiVersion: 'portico/v1',
        settings: { mcp: { pageSize: 7 }, upstream: { timeoutMs: 4000 } },
        gateways: [{ name: 'Clock', url: upstream.url }],
        servers: [{ name: 'Clocks', tools: ['clock-now'] }],
      }),
    );
  });

  afterAll(() => upstream.close());

  it('applies the file before serving', async () => {
    const app = await startTestApp({ env: { CONFIG_FILE: file } });
    try {
      const servers = (await app.api().get('/api/v1/servers').expect(200)).body as {
        items: { name: string; toolIds: string[] }[];
      };
      expect(servers.items.map((s) => [s.name, s.toolIds.length])).toEqual([['Clocks', 1]]);
      // The knobs of its settings block are read at the same start.
      expect([app.config.mcpPageSize, app.config.upstreamTimeoutMs]).toEqual([7, 4000]);
    } finally {
      await app.close();
    }
  });
});

describeOnPostgres('CONFIG_FILE with several replicas', () => {
  it('is applied once when replicas start together, and not again on restart with the same file', async () => {
    const upstream = await startUpstream({ tools: [echoTool('now', 'clock')] });
    const file = join(tempDataDir(), 'portico.yaml');
    writeFileSync(
      file,
      stringifyYaml({ apiVersion: 'portico/v1', gateways: [{ name: 'Clock', url: upstream.url }] }),
    );
    const database = await createTestDatabase();
    const first = await startTestApp({ database });
    try {
      const env = { CONFIG_FILE: file };
      const replicas = await Promise.all([startReplica(first, env), startReplica(first, env)]);
      const gateways = (await first.api().get('/api/v1/gateways').expect(200)).body as {
        items: { name: string }[];
      };
      expect(gateways.items.map((g) => g.name)).toEqual(['Clock']);
      const appliedAt = async () =>
        first.app.get(DataSource).query<unknown[]>('SELECT source, applied_at FROM config_apply');
      const once = await appliedAt();
      expect(once).toHaveLength(1);
      await Promise.all(replicas.map((replica) => replica.close()));
      const restarted = await startReplica(first, env);
      await restarted.close();
      expect(await appliedAt()).toEqual(once);
    } finally {
      await first.close();
      await database.drop();
      await upstream.close();
    }
  });
});
