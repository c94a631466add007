import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, type TestUser } from '../support/identities';
import { connectClient } from '../support/mcp-client';
import { rawCall } from '../support/modern-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface DryRunTool {
  name: string;
  listed: boolean;
  decision: 'allow' | 'deny' | 'approve' | 'call-dependent';
}

/**
 * The dry run against what users meet: for every user of the fixture, on every endpoint they may
 * use, under every policy of the fixture (as a whole set, and each policy alone), the tools the
 * dry run says are listed are the ones their own `tools/list` lists, in both eras, and what it
 * decides of a call is what a call of theirs then does.
 */
describe('the policy dry run equals what users see', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let users: TestUser[];
  const scopes: { serverId: string | null; path: string }[] = [];
  const clients: Client[] = [];

  /** Each policy of the fixture; some read the arguments, some only the principal. */
  const POLICIES = [
    // Every call of fx-echo by Red is denied, whatever the arguments: hidden from Red.
    { name: 'a-args-deny', expression: 'has(args.x) && args.x == 1', effect: 'deny', priority: 1 },
    {
      name: 'b-red-no-echo',
      expression: "tool.name == 'fx-echo' && 'Red' in principal.teams",
      effect: 'deny',
      priority: 2,
    },
    {
      name: 'c-members-ask',
      expression: "principal.role == 'member' && tool.originalName == 'drop_table'",
      effect: 'approve',
      priority: 3,
    },
    {
      name: 'd-login-only',
      expression: "principal.source != 'login-token' && tool.originalName == 'read_table'",
      effect: 'deny',
      priority: 4,
    },
    {
      name: 'e-blue-allowed-with-ticket',
      expression: "'Blue' in principal.teams && has(args.ticket)",
      effect: 'allow',
      priority: 5,
    },
    {
      name: 'f-blue-deny-rest',
      expression: "'Blue' in principal.teams",
      effect: 'deny',
      priority: 6,
    },
  ] as const;

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startUpstream({
      name: 'fx',
      tools: ['echo', 'drop_table', 'read_table', 'note'].map((name) => echoTool(name, 'fx')),
    });
    await t.api().post('/api/v1/gateways').send({ name: 'fx', url: upstream.url }).expect(201);
    const listed = await t.api().get('/api/v1/tools').expect(200);
    const ids = (listed.body.items as { id: string }[]).map((tool) => tool.id);
    const red = await createTeam(t, 'Red');
    const blue = await createTeam(t, 'Blue');
    users = [
      await createUser(t, 'alice', 'member', [red]),
      await createUser(t, 'bob', 'operator', [blue]),
      await createUser(t, 'carol', 'member', [red, blue]),
      await createUser(t, 'root', 'admin', []),
    ];
    scopes.push({ serverId: null, path: '/mcp' });
    for (const [name, teamId] of [
      ['global', null],
      ['red', red],
    ] as const) {
      const server = await t
        .api()
        .post('/api/v1/servers')
        .send({ name, teamId, toolIds: ids.slice(name === 'red' ? 1 : 0) })
        .expect(201);
      scopes.push({ serverId: server.body.id as string, path: `/servers/${server.body.id}/mcp` });
    }
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await t?.close();
    await upstream?.close();
  });

  async function compareEverywhere(label: string): Promise<number> {
    let compared = 0;
    for (const user of users)
      for (const scope of scopes) {
        let client: Client;
        try {
          client = await connectClient(t.baseUrl, { token: user.token, path: scope.path });
        } catch {
          continue; // An endpoint this user may not use at all (403): nothing to compare.
        }
        clients.push(client);
        const where = `${label}: ${user.username} on ${scope.path}`;
        const dryRun = await t
          .api()
          .post('/api/v1/policies/dry-run')
          .send({ user: user.username, serverId: scope.serverId })
          .expect(200);
        const judged = dryRun.body.tools as DryRunTool[];
        const expected = judged.filter((tool) => tool.listed).map((tool) => tool.name);
        const seen = (await client.listTools()).tools.map((tool) => tool.name);
        expect(`${where}: ${seen.join(', ')}`).toBe(`${where}: ${expected.join(', ')}`);
        expect(dryRun.body.summary.visible).toBe(seen.length);

        // A call with no arguments does what the dry run with `{}` says it decides.
        const withArguments = await t
          .api()
          .post('/api/v1/policies/dry-run')
          .send({ user: user.username, serverId: scope.serverId, arguments: {} })
          .expect(200);
        for (const tool of withArguments.body.tools as DryRunTool[]) {
          const outcome = await callOutcome(client, tool.name);
          expect(`${where} calls ${tool.name}: ${outcome}`).toBe(
            `${where} calls ${tool.name}: ${tool.decision}`,
          );
          const modern = await rawCall(
            t,
            `${user.username}-${tool.name}`,
            { name: tool.name, arguments: {} },
            { path: scope.path, token: user.token, capabilities: {} },
          );
          expect(`${where} (2026-07-28) calls ${tool.name}: ${modernOutcome(modern.body)}`).toBe(
            `${where} (2026-07-28) calls ${tool.name}: ${tool.decision}`,
          );
        }
        compared += 1;
      }
    return compared;
  }

  it('as a whole set, and for each policy alone', async () => {
    const ids: string[] = [];
    for (const policy of POLICIES)
      ids.push((await t.api().post('/api/v1/policies').send(policy).expect(201)).body.id as string);
    expect(await compareEverywhere('all policies')).toBeGreaterThanOrEqual(8);
    for (const [index, id] of ids.entries()) {
      for (const other of ids)
        await t
          .api()
          .patch(`/api/v1/policies/${other}`)
          .send({ enabled: other === id })
          .expect(200);
      await compareEverywhere(`only ${POLICIES[index]!.name}`);
    }
  });
});

/** What a 2025 client's call did: went upstream (allow), unknown (deny), or asked (approve). */
async function callOutcome(client: Client, name: string): Promise<string> {
  try {
    await client.callTool({ name, arguments: {} });
    return 'allow';
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    if (/Unknown tool/.test(error.message)) return 'deny';
    if (/cannot be asked/.test(error.message)) return 'approve';
    return error.message;
  }
}

function modernOutcome(body: { result?: unknown; error?: { code: number; message: string } }) {
  if (body.result) return 'allow';
  if (/Unknown tool/.test(body.error!.message)) return 'deny';
  if (body.error!.code === -32021) return 'approve';
  return body.error!.message;
}
