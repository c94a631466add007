import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, type TestUser } from '../support/identities';
import { connectClient, eventually, rpcError } from '../support/mcp-client';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
const OPENAI_KEY = `sk-proj-${'Zx9Yw8Vu7T'.repeat(3)}`;

/** An upstream whose `read_config` leaks credentials, as a careless tool would. */
function vaultUpstream(): Promise<UpstreamFixture> {
  return startUpstream({
    name: 'vault',
    tools: [
      {
        definition: {
          name: 'read_config',
          description: 'Read the deployment configuration',
          inputSchema: { type: 'object', properties: {} },
        },
        handler: () => ({
          content: [
            {
              type: 'text',
              text: `aws_access_key_id=${AWS_KEY}\ngithub=${GITHUB_TOKEN}\nopenai=${OPENAI_KEY}\nregion=eu-west-1`,
            },
          ],
          structuredContent: {
            aws: { keyId: AWS_KEY },
            tokens: [GITHUB_TOKEN],
            region: 'eu-west-1',
          },
        }),
      },
      echoTool('drop_table', 'vault', { description: 'Drop a database table for good' }),
      echoTool('public_info', 'vault', {
        description: 'Public information about the vault',
        inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
      }),
    ],
  });
}

const textOf = (result: unknown) =>
  (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');

describe('policies and call hooks', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let toolIds: Record<string, string>;
  let serverId: string;
  let searchServerId: string;
  let red: string;
  let operator: TestUser;
  const clients: Client[] = [];

  const client = async (token: string, id = serverId) => {
    const connected = await connectClient(t.baseUrl, { token, path: `/servers/${id}/mcp` });
    clients.push(connected);
    return connected;
  };

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await vaultUpstream();
    const gateway = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Vault', url: upstream.url })
      .expect(201);
    const tools = await t
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId: gateway.body.id })
      .expect(200);
    toolIds = Object.fromEntries(
      (tools.body.items as { id: string; originalName: string }[]).map((tool) => [
        tool.originalName,
        tool.id,
      ]),
    );
    const all = Object.values(toolIds);
    serverId = (
      await t.api().post('/api/v1/servers').send({ name: 'Vault', toolIds: all }).expect(201)
    ).body.id;
    searchServerId = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Vault search',
          toolIds: all,
          toolSearch: { enabled: true, alwaysLoaded: [] },
        })
        .expect(201)
    ).body.id;
    red = await createTeam(t, 'Red');
    operator = await createUser(t, 'red-operator', 'operator', [red]);
  });

  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await t.close();
    await upstream.close();
  });

  describe('a tool denied to a team', () => {
    beforeAll(async () => {
      await t
        .api()
        .post('/api/v1/policies')
        .send({
          name: 'no-drop-for-red',
          expression: `tool.id == "${toolIds.drop_table}" && "Red" in principal.teams`,
          effect: 'deny',
        })
        .expect(201);
    });

    it('is not listed for members of the team, and still is for others', async () => {
      const mine = await client(operator.token);
      const names = (await mine.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(['vault-public_info', 'vault-read_config']);
      const admin = await client(t.token);
      expect((await admin.listTools()).tools.map((tool) => tool.name)).toContain(
        'vault-drop_table',
      );
    });

    it('cannot be called over MCP, by name or by hashed backend name', async () => {
      const mine = await client(operator.token);
      const byName = await rpcError(mine.callTool({ name: 'vault-drop_table', arguments: {} }));
      expect(byName.message).toContain('Unknown tool: vault-drop_table');
      const hash = (await t.api().get(`/api/v1/tools/${toolIds.drop_table}`).expect(200)).body
        .toolHash as string;
      const byHash = await rpcError(mine.callTool({ name: `${hash}_drop_table`, arguments: {} }));
      expect(byHash.message).toContain('Unknown tool');
      const admin = await client(t.token);
      expect(textOf(await admin.callTool({ name: 'vault-drop_table', arguments: {} }))).toBe(
        'vault:drop_table',
      );
    });

    it('is not found by tool search', async () => {
      const mine = await client(operator.token, searchServerId);
      const found = await mine.callTool({
        name: 'tool_search',
        arguments: { query: 'select:vault-drop_table,vault-public_info' },
      });
      expect(JSON.stringify(found)).toContain('vault-public_info');
      expect(JSON.stringify(found)).not.toContain('drop_table');
      const freeText = await mine.callTool({
        name: 'tool_search',
        arguments: { query: 'drop table' },
      });
      expect(JSON.stringify(freeText)).not.toContain('drop_table');
      const admin = await client(t.token, searchServerId);
      const adminFound = await admin.callTool({
        name: 'tool_search',
        arguments: { query: 'select:vault-drop_table' },
      });
      expect(JSON.stringify(adminFound)).toContain('vault-drop_table');
    });

    it('is a 404 to REST invoke', async () => {
      await request(t.baseUrl)
        .post(`/api/v1/tools/${toolIds.drop_table}/invoke`)
        .set('Authorization', `Bearer ${operator.token}`)
        .send({ arguments: {} })
        .expect(404);
      await request(t.baseUrl)
        .post(`/api/v1/tools/${toolIds.public_info}/invoke`)
        .set('Authorization', `Bearer ${operator.token}`)
        .send({ arguments: {} })
        .expect(200);
    });
  });

  it('lets only admins use a tool on one server, as a policy of that server only', async () => {
    const rule = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'public-info-admins-only',
        expression: `tool.name == "vault-public_info" && principal.role != "admin"`,
        effect: 'deny',
        serverId,
      })
      .expect(201);
    await eventually(async () => {
      const mine = await client(operator.token);
      expect((await mine.listTools()).tools.map((tool) => tool.name)).toEqual([
        'vault-read_config',
      ]);
    });
    const elsewhere = await client(operator.token, searchServerId);
    const found = await elsewhere.callTool({
      name: 'tool_search',
      arguments: { query: 'select:vault-public_info' },
    });
    expect(JSON.stringify(found)).toContain('vault-public_info');
    const listed = await t.api().get('/api/v1/policies').query({ serverId }).expect(200);
    expect(listed.body.items.map((item: { name: string }) => item.name)).toEqual([
      'public-info-admins-only',
    ]);
    await t.api().delete(`/api/v1/policies/${rule.body.id}`).expect(204);
    const after = await t.api().get('/api/v1/policies').query({ serverId }).expect(200);
    expect(after.body.total).toBe(0);
  });

  it('tells connected sessions their tool list changed when a policy changes', async () => {
    const mine = await client(operator.token);
    let changed = 0;
    mine.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    const before = (await mine.listTools()).tools.map((tool) => tool.name);
    expect(before).toContain('vault-read_config');
    const rule = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-config-for-operators',
        expression: `tool.originalName == "read_config" && principal.role == "operator"`,
        effect: 'deny',
        serverId,
      })
      .expect(201);
    await eventually(() => expect(changed).toBeGreaterThan(0));
    expect((await mine.listTools()).tools.map((tool) => tool.name)).not.toContain(
      'vault-read_config',
    );
    await t.api().delete(`/api/v1/policies/${rule.body.id}`).expect(204);
    await eventually(async () =>
      expect((await mine.listTools()).tools.map((tool) => tool.name)).toContain(
        'vault-read_config',
      ),
    );
  });

  it('leaves a denied tool’s UI resource out of resources/list', async () => {
    const apps = await startUpstream({
      name: 'apps',
      tools: [
        echoTool('chart', 'apps', { _meta: { ui: { resourceUri: 'ui://apps/chart.html' } } }),
        echoTool('table', 'apps', { _meta: { ui: { resourceUri: 'ui://apps/table.html' } } }),
      ],
    });
    try {
      const gateway = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'Apps', url: apps.url })
        .expect(201);
      const tools = (
        await t.api().get('/api/v1/tools').query({ gatewayId: gateway.body.id }).expect(200)
      ).body.items as { id: string; originalName: string; toolHash: string }[];
      const chart = tools.find((tool) => tool.originalName === 'chart')!;
      const table = tools.find((tool) => tool.originalName === 'table')!;
      const appsServer = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Apps', toolIds: tools.map((tool) => tool.id) })
          .expect(201)
      ).body.id as string;
      await t
        .api()
        .post('/api/v1/policies')
        .send({
          name: 'no-chart-for-red',
          expression: `tool.id == "${chart.id}" && "${red}" in principal.teamIds`,
          effect: 'deny',
        })
        .expect(201);
      const uris = async (token: string) =>
        (await (await client(token, appsServer)).listResources()).resources.map(
          (resource) => resource.uri,
        );
      const chartUri = `ui://prefab/tool/${chart.toolHash}/renderer.html`;
      const tableUri = `ui://prefab/tool/${table.toolHash}/renderer.html`;
      expect(await uris(t.token)).toEqual(expect.arrayContaining([chartUri, tableUri]));
      const mine = await uris(operator.token);
      expect(mine).toContain(tableUri);
      expect(mine).not.toContain(chartUri);
    } finally {
      await apps.close();
    }
  });

  it('refuses policies that do not compile, of unknown servers, twice named, and from non-admins', async () => {
    const typo = await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'typo', expression: 'principal.rol == "admin"', effect: 'deny' })
      .expect(400);
    expect(typo.body.code).toBe('policy.invalid_expression');
    expect(typo.body.detail).toContain('rol');
    expect(typo.body.position).toEqual({ offset: 10, line: 1, column: 11 });
    const broken = await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'broken', expression: 'tool.name ==\n  ', effect: 'deny' })
      .expect(400);
    expect(broken.body.detail).toContain('(line 2, column 3)');
    const notBool = await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'not-bool', expression: 'tool.name', effect: 'deny' })
      .expect(400);
    expect(notBool.body.detail).toContain('gives string; a policy needs a bool');
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'nowhere',
        expression: 'true',
        effect: 'deny',
        serverId: '00000000-0000-4000-8000-000000000000',
      })
      .expect(422);
    const approval = await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'odd', expression: 'true', effect: 'deny', approval: { rememberSeconds: 5 } })
      .expect(422);
    expect(approval.body.code).toBe('policy.invalid_approval');
    await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'no-drop-for-red', expression: 'false', effect: 'deny' })
      .expect(409);
    await request(t.baseUrl)
      .post('/api/v1/policies')
      .set('Authorization', `Bearer ${operator.token}`)
      .send({ name: 'mine', expression: 'true', effect: 'deny' })
      .expect(403);
    expect(
      (await t.api().get('/api/v1/policies').expect(200)).body.items.map(
        (item: { name: string }) => item.name,
      ),
    ).toEqual(['no-chart-for-red', 'no-drop-for-red']);
  });

  it('follows a team rename, as policies read team names', async () => {
    const amber = await createTeam(t, 'Amber');
    const someone = await createUser(t, 'amber-operator', 'operator', [amber]);
    const policy = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-config-for-orange',
        expression: '"Orange" in principal.teams && tool.originalName == "read_config"',
        effect: 'deny',
      })
      .expect(201);
    const theirs = await client(someone.token);
    expect((await theirs.listTools()).tools.map((tool) => tool.name)).toContain(
      'vault-read_config',
    );
    await t.api().patch(`/api/v1/teams/${amber}`).send({ name: 'Orange' }).expect(200);
    await eventually(async () =>
      expect((await theirs.listTools()).tools.map((tool) => tool.name)).not.toContain(
        'vault-read_config',
      ),
    );
    await t.api().delete(`/api/v1/policies/${policy.body.id}`).expect(204);
  });

  describe('policies over arguments, and their dry run', () => {
    const created: string[] = [];
    const create = async (body: object) => {
      const response = await t.api().post('/api/v1/policies').send(body).expect(201);
      created.push(response.body.id as string);
      return response.body as { id: string; name: string };
    };

    beforeAll(async () => {
      await create({
        name: 'no-secret-notes',
        expression: 'tool.name == "vault-public_info" && args.note.startsWith("secret")',
        effect: 'deny',
        priority: -10,
        serverId,
      });
      await create({
        name: 'ask-before-asking',
        expression: 'tool.originalName == "public_info" && args.note == "ask"',
        effect: 'approve',
        priority: -5,
        approval: { message: 'A note that asks', rememberSeconds: 600 },
      });
    });

    afterAll(async () => {
      for (const id of created) await t.api().delete(`/api/v1/policies/${id}`).expect(204);
    });

    it('decide a real tools/call by its arguments, while the tool stays listed', async () => {
      const mine = await client(operator.token);
      await eventually(async () => {
        const refused = await rpcError(
          mine.callTool({ name: 'vault-public_info', arguments: { note: 'secret plans' } }),
        );
        expect(refused.message).toContain('Unknown tool: vault-public_info');
      });
      expect((await mine.listTools()).tools.map((tool) => tool.name)).toContain(
        'vault-public_info',
      );
      expect(
        textOf(await mine.callTool({ name: 'vault-public_info', arguments: { note: 'hello' } })),
      ).toBe('vault:public_info');
      const asked = await rpcError(
        mine.callTool({ name: 'vault-public_info', arguments: { note: 'ask' } }),
      );
      expect(asked.code).toBe(-32011);
      expect(asked.message).toContain(
        "Policy 'ask-before-asking' needs your approval for calls of",
      );
    });

    it('refuse REST invoke that needs approval with 403, and let the others through', async () => {
      const asked = await request(t.baseUrl)
        .post(`/api/v1/tools/${toolIds.public_info}/invoke`)
        .set('Authorization', `Bearer ${operator.token}`)
        .send({ arguments: { note: 'ask' } })
        .expect(403);
      expect(asked.body.code).toBe('tool.approval_required');
      expect(asked.body.detail).toContain('elicitation');
      // The server's own policy holds on its endpoint only.
      await request(t.baseUrl)
        .post(`/api/v1/tools/${toolIds.public_info}/invoke`)
        .set('Authorization', `Bearer ${operator.token}`)
        .send({ arguments: { note: 'secret' } })
        .expect(200);
    });

    it('dry-run what a user would see and may call on a server', async () => {
      const result = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({ user: operator.username, serverId })
        .expect(200);
      expect(result.body.principal).toEqual({
        subject: `user:${operator.id}`,
        name: 'red-operator',
        role: 'operator',
        teams: ['Red'],
      });
      expect(result.body.tools).toEqual([
        {
          name: 'vault-drop_table',
          gatewaySlug: 'vault',
          listed: false,
          decision: 'deny',
          policy: { id: expect.any(String), name: 'no-drop-for-red' },
        },
        {
          name: 'vault-public_info',
          gatewaySlug: 'vault',
          listed: true,
          decision: 'call-dependent',
          policy: { id: created[0], name: 'no-secret-notes' },
        },
        {
          name: 'vault-read_config',
          gatewaySlug: 'vault',
          listed: true,
          decision: 'allow',
          policy: null,
        },
      ]);
      expect(result.body.summary).toEqual({
        tools: 3,
        visible: 2,
        hidden: 1,
        needingApproval: 0,
        callDependent: 1,
      });

      const withArguments = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({
          user: operator.id,
          serverId,
          tools: ['vault-public_info'],
          arguments: { note: 'ask' },
        })
        .expect(200);
      expect(withArguments.body.tools).toEqual([
        {
          name: 'vault-public_info',
          gatewaySlug: 'vault',
          listed: true,
          decision: 'approve',
          policy: { id: created[1], name: 'ask-before-asking' },
        },
      ]);

      const someoneElse = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({ principal: { role: 'member', teamIds: [] }, serverId, tools: ['vault-drop_table'] })
        .expect(200);
      expect(someoneElse.body.tools[0].decision).toBe('allow');
    });

    it('dry-run a proposed set of policies before it is applied, changing nothing', async () => {
      const before = (await t.api().get('/api/v1/policies').expect(200)).body;
      const proposed = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({
          user: operator.username,
          serverId,
          policies: [
            { name: 'reds-ask', expression: '"Red" in principal.teams', effect: 'approve' },
            { name: 'elsewhere', expression: 'true', effect: 'deny', serverId: searchServerId },
          ],
        })
        .expect(200);
      expect(proposed.body.proposed).toBe(true);
      expect(
        proposed.body.tools.map((tool: { decision: string; policy: unknown }) => [
          tool.decision,
          tool.policy,
        ]),
      ).toEqual(Array(3).fill(['approve', { id: null, name: 'reds-ask' }]));
      expect(proposed.body.summary).toMatchObject({ visible: 3, needingApproval: 3 });
      expect((await t.api().get('/api/v1/policies').expect(200)).body).toEqual(before);

      const broken = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({
          user: operator.username,
          policies: [{ name: 'x', expression: 'nope(', effect: 'deny' }],
        })
        .expect(400);
      expect(broken.body.code).toBe('policy.invalid_expression');
      await t.api().post('/api/v1/policies/dry-run').send({ user: 'nobody-at-all' }).expect(422);
      await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({ user: operator.username, tools: ['vault-nope'] })
        .expect(422);
      await request(t.baseUrl)
        .post('/api/v1/policies/dry-run')
        .set('Authorization', `Bearer ${operator.token}`)
        .send({ user: operator.username })
        .expect(403);
    });

    it('edit a policy, which takes effect on the next call', async () => {
      const mine = await client(operator.token);
      await t
        .api()
        .patch(`/api/v1/policies/${created[0]}`)
        .send({ expression: 'tool.name == "vault-public_info" && args.note == "hello"' })
        .expect(200);
      await eventually(async () =>
        expect(
          (
            await rpcError(
              mine.callTool({ name: 'vault-public_info', arguments: { note: 'hello' } }),
            )
          ).message,
        ).toContain('Unknown tool: vault-public_info'),
      );
      const edited = await t.api().get(`/api/v1/policies/${created[0]}`).expect(200);
      expect(edited.body).toMatchObject({ name: 'no-secret-notes', effect: 'deny', enabled: true });
      await t
        .api()
        .patch(`/api/v1/policies/${created[0]}`)
        .send({ expression: 'tool.name ==' })
        .expect(400);
      await t.api().patch(`/api/v1/policies/${created[0]}`).send({ enabled: false }).expect(200);
      await eventually(async () =>
        expect(
          textOf(await mine.callTool({ name: 'vault-public_info', arguments: { note: 'hello' } })),
        ).toBe('vault:public_info'),
      );
    });
  });

  describe('hooks', () => {
    afterEach(async () => {
      await t.api().put(`/api/v1/servers/${serverId}/hooks`).send({ hooks: [] }).expect(200);
    });

    it('redact secrets in a real upstream’s result', async () => {
      const admin = await client(t.token);
      const raw = textOf(await admin.callTool({ name: 'vault-read_config', arguments: {} }));
      expect(raw).toContain(AWS_KEY);

      await t
        .api()
        .put(`/api/v1/servers/${serverId}/hooks`)
        .send({ hooks: [{ name: 'secret-redaction' }] })
        .expect(200);
      await eventually(async () => {
        const result = (await admin.callTool({
          name: 'vault-read_config',
          arguments: {},
        })) as CallToolResult;
        const everything = JSON.stringify(result);
        for (const secret of [AWS_KEY, GITHUB_TOKEN, OPENAI_KEY])
          expect(everything).not.toContain(secret);
        expect(textOf(result)).toContain('aws_access_key_id=[redacted:aws-access-key-id]');
        expect(textOf(result)).toContain('github=[redacted:github-token]');
        expect(textOf(result)).toContain('openai=[redacted:openai-key]');
        expect(textOf(result)).toContain('region=eu-west-1');
        expect(result.structuredContent).toEqual({
          aws: { keyId: '[redacted:aws-access-key-id]' },
          tokens: ['[redacted:github-token]'],
          region: 'eu-west-1',
        });
      });
      const stored = await t.api().get(`/api/v1/servers/${serverId}/hooks`).expect(200);
      expect(stored.body).toEqual({ hooks: [{ name: 'secret-redaction' }] });
    });

    it('refuse oversized arguments and results in order, and the session goes on', async () => {
      await t
        .api()
        .put(`/api/v1/servers/${serverId}/hooks`)
        .send({
          hooks: [{ name: 'size-limit', config: { maxArgumentBytes: 40, maxResultBytes: 200 } }],
        })
        .expect(200);
      const admin = await client(t.token);
      const big = await eventually(() =>
        rpcError(
          admin.callTool({ name: 'vault-public_info', arguments: { note: 'x'.repeat(100) } }),
        ),
      );
      expect(big.code).toBe(-32011);
      expect(big.message).toContain("Refused by hook 'size-limit'");
      expect(big.message).toContain('over this server');
      const small = await admin.callTool({ name: 'vault-public_info', arguments: { note: 'hi' } });
      expect(textOf(small)).toBe('vault:public_info');
      const leaky = await rpcError(admin.callTool({ name: 'vault-read_config', arguments: {} }));
      expect(leaky.message).toContain('The result is');
      expect(leaky.message).not.toContain(AWS_KEY);
    });

    it('refuse settings they cannot run with', async () => {
      const unknown = await t
        .api()
        .put(`/api/v1/servers/${serverId}/hooks`)
        .send({ hooks: [{ name: 'no-such-hook' }] })
        .expect(422);
      expect(unknown.body.code).toBe('policy.invalid_hooks');
      await t
        .api()
        .put(`/api/v1/servers/${serverId}/hooks`)
        .send({ hooks: [{ name: 'size-limit', config: { maxResultBytes: -1 } }] })
        .expect(422);
    });

    it('fail closed when the stored hooks cannot run', async () => {
      const dataSource = t.app.get(DataSource);
      await dataSource.query(`UPDATE server SET hooks = '[{"name":"gone-hook"}]' WHERE id = $1`, [
        serverId,
      ]);
      // Any edit of the server drops the cached directories, which then read the stored hooks.
      await t
        .api()
        .patch(`/api/v1/servers/${serverId}`)
        .send({ description: 'edited' })
        .expect(200);
      const admin = await client(t.token);
      const refused = await eventually(() =>
        rpcError(admin.callTool({ name: 'vault-read_config', arguments: {} })),
      );
      expect(refused.code).toBe(-32011);
      expect(refused.message).toContain("there is no hook 'gone-hook'");
    });
  });
});

describeOnPostgres('a policy across two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let upstream: UpstreamFixture;
  let client: Client | undefined;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startReplica(a);
    upstream = await vaultUpstream();
    await a.api().post('/api/v1/gateways').send({ name: 'Vault', url: upstream.url }).expect(201);
  });

  afterAll(async () => {
    await client?.close();
    await b.close();
    await a.close();
    await upstream.close();
  });

  it('is judged by the other replica as soon as it is saved', async () => {
    client = await connectClient(b.baseUrl, { token: a.token, path: '/mcp' });
    const names = async () => (await client!.listTools()).tools.map((tool) => tool.name);
    expect(await names()).toContain('vault-drop_table');
    await a
      .api()
      .post('/api/v1/policies')
      .send({ name: 'no-drops', expression: 'tool.originalName == "drop_table"', effect: 'deny' })
      .expect(201);
    await eventually(async () => expect(await names()).not.toContain('vault-drop_table'));
    const refused = await rpcError(client.callTool({ name: 'vault-drop_table', arguments: {} }));
    expect(refused.message).toContain('Unknown tool: vault-drop_table');
  });
});
