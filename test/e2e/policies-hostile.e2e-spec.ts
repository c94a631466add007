import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Client as ModernClient } from '@modelcontextprotocol/client';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import {
  echoTool,
  type FixtureTool,
  startUpstream,
  type UpstreamFixture,
} from '../fixtures/upstream-server';
import { createUser } from '../support/identities';
import { connectClient, eventually, rpcError } from '../support/mcp-client';
import { modernClient } from '../support/modern-client';
import { type PorticoProcess, startPorticoProcess } from '../support/portico-process';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database';

/** The largest argument a policy may read: 100,000 characters, the key included. */
const LONGEST = 'y'.repeat(99_999);
/** A list of 9,000 short paths: below the 10,000 values a policy may read. */
const PATHS = Array.from({ length: 9_000 }, (_, index) => `/tmp/${index}`);

/** A tool that answers its name, without echoing the (large) arguments back. */
const quiet = (name: string): FixtureTool => ({
  ...echoTool(name, 'hostile'),
  handler: () => ({ content: [{ type: 'text', text: `hostile:${name}` }] }),
});

const textOf = (result: unknown) =>
  (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');

/** The message of what a call threw (an SDK v1 McpError or a v2 client's error). */
async function failure(call: Promise<unknown>): Promise<{ code?: unknown; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error('the call succeeded');
}

/**
 * Policy expressions written to hold or end the process, and calls sent to make ordinary ones do
 * so: the save check refuses the first with why and where, the meter and the argument limits hold
 * the rest to a few milliseconds, and a policy that cannot judge a call refuses it.
 */
describe('hostile policies and arguments', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  const clients: { close(): Promise<void> }[] = [];
  const created: string[] = [];

  const policy = async (body: object) => {
    const response = await t.api().post('/api/v1/policies').send(body).expect(201);
    created.push(response.body.id as string);
    return response.body.id as string;
  };
  const dropPolicies = async () => {
    for (const id of created.splice(0)) await t.api().delete(`/api/v1/policies/${id}`).expect(204);
  };
  const calls = (tool: string) => upstream.calls.filter((call) => call.name === tool).length;

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startUpstream({
      name: 'hostile',
      tools: [quiet('write'), quiet('read'), quiet('match')],
    });
    await t.api().post('/api/v1/gateways').send({ name: 'hostile', url: upstream.url }).expect(201);
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
    await upstream.close();
  });

  afterEach(dropPolicies);

  const v1 = async (token = t.token): Promise<Client> => {
    const client = await connectClient(t.baseUrl, { token, path: '/mcp' });
    clients.push(client);
    return client;
  };
  const modern = async (): Promise<ModernClient> => {
    const client = await modernClient(t);
    clients.push(client);
    return client;
  };

  it('refuses, when saved, expressions whose worst case is unbounded or too large, saying why', async () => {
    const binds = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    let attack = 'l.split("y").size() > 0';
    for (let index = binds.length - 1; index >= 0; index -= 1) {
      const value = index === 0 ? 'args.s + args.s' : `${binds[index - 1]} + ${binds[index - 1]}`;
      attack = `cel.bind(${binds[index]}, ${value}, ${attack})`;
    }
    const hostile: [string, string][] = [
      [attack, 'could cost up to'],
      [attack.replace('l.split("y").size() > 0', 'size(l) > 3'), 'could cost up to'],
      ['bytes(args.s).json().size() > 0', '`bytes.json()` is not available in policies'],
      ['args.l.exists(x, [1, 2].exists(y, y == 1))', 'cannot be used inside another loop'],
      ['args.zones.exists(z, now.getHours(z) > 3)', 'could cost up to'],
      ['args.l.join(args.s) == ""', 'could'],
      ['cel.bind(a, args.s + args.s, a.split("y").size() > 3)', 'could cost up to'],
      ['args.s.upperAscii().upperAscii().upperAscii() == ""', 'could'],
      ['matches(args.s, "(")', 'invalid pattern'],
    ];
    for (const [expression, why] of hostile) {
      const refused = await t
        .api()
        .post('/api/v1/policies')
        .send({ name: 'hostile', expression, effect: 'deny' })
        .expect(400);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.body.code).toBe('policy.invalid_expression');
      expect(refused.body.detail).toContain(why);
      expect(refused.body.position).toMatchObject({ line: 1 });
      if (why === 'could cost up to')
        expect(refused.body.detail).toContain(
          "Policy 'hostile': the expression is refused (line 1",
        );
    }
    expect((await t.api().get('/api/v1/policies').expect(200)).body.total).toBe(0);
  });

  it('refuses the call a deny cannot judge on large input: the upstream sees none, the audit says why', async () => {
    await policy({
      name: 'no-y-only',
      expression: 'tool.originalName == "read" && matches(args.s, "^y+$")',
      effect: 'deny',
    });
    const client = await v1();
    const denied = await eventually(() =>
      rpcError(client.callTool({ name: 'hostile-read', arguments: { s: 'y' } })),
    );
    expect(denied.message).toContain('Unknown tool: hostile-read');

    const big = { s: 'y'.repeat(50_000) };
    const refused = await rpcError(client.callTool({ name: 'hostile-read', arguments: big }));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain(
      "Policy 'no-y-only' could not judge this call, so it is refused: matches: a text of 50000 characters",
    );
    const neu = await modern();
    const modernRefusal = await failure(neu.callTool({ name: 'hostile-read', arguments: big }));
    expect(modernRefusal.message).toContain("Policy 'no-y-only' could not judge this call");
    expect(calls('read')).toBe(0);

    const audited = await eventually(async () => {
      const page = await t
        .api()
        .get('/api/v1/audit')
        .query({ action: 'tools/call', tool: 'hostile-read' })
        .expect(200);
      const entries = (page.body.items as { outcome: string; detail: string | null }[]).filter(
        (entry) => entry.detail?.includes("Policy 'no-y-only' could not judge this call"),
      );
      expect(entries.length).toBeGreaterThanOrEqual(2);
      return entries;
    });
    expect(audited[0]).toMatchObject({ outcome: 'error' });

    const tools = await t.api().get('/api/v1/tools').expect(200);
    const read = (tools.body.items as { id: string; originalName: string }[]).find(
      (tool) => tool.originalName === 'read',
    )!;
    const rest = await t
      .api()
      .post(`/api/v1/tools/${read.id}/invoke`)
      .send({ arguments: big })
      .expect(422);
    expect(rest.body.detail).toContain("Policy 'no-y-only' could not judge this call");
    expect(calls('read')).toBe(0);
  });

  it('refuses arguments larger than a policy reads as invalid params, and not the others', async () => {
    await policy({
      name: 'reads-s',
      expression: 'tool.originalName == "read" && args.s == "x"',
      effect: 'deny',
    });
    const client = await v1();
    const refused = await eventually(() =>
      rpcError(client.callTool({ name: 'hostile-read', arguments: { s: `${LONGEST}yy` } })),
    );
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain("The arguments 's' hold more than 100000 characters");
    expect(refused.message).toContain("policy 'reads-s'");
    expect(calls('read')).toBe(0);
    const unread = { s: 'y', content: 'z'.repeat(1_000_000) };
    expect(textOf(await client.callTool({ name: 'hostile-read', arguments: unread }))).toBe(
      'hostile:read',
    );
    expect(calls('read')).toBe(1);
  });

  it('hides a tool from a principal a policy fails on when listing, and refuses its calls', async () => {
    await policy({
      name: 'costly-hint',
      expression:
        'tool.originalName == "read" && principal.role == "operator" && tool.annotations.costHint > 3.0',
      effect: 'deny',
    });
    const operator = await createUser(t, 'hostile-operator', 'operator');
    const tools = await t.api().get('/api/v1/tools').expect(200);
    const server = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'hostile',
        toolIds: (tools.body.items as { id: string }[]).map((tool) => tool.id),
      })
      .expect(201);
    const path = `/servers/${server.body.id as string}/mcp`;
    const theirs = await connectClient(t.baseUrl, { token: operator.token, path });
    clients.push(theirs);
    await eventually(async () =>
      expect((await theirs.listTools()).tools.map((tool) => tool.name)).not.toContain(
        'hostile-read',
      ),
    );
    expect((await theirs.listTools()).tools.map((tool) => tool.name)).toContain('hostile-write');
    const admin = await connectClient(t.baseUrl, { token: t.token, path });
    clients.push(admin);
    expect((await admin.listTools()).tools.map((tool) => tool.name)).toContain('hostile-read');
    // Hidden from them; a call (the tool is judged whatever name reaches it), and REST invoke,
    // are refused with the policy and the reason.
    const refusedCall = await rpcError(theirs.callTool({ name: 'hostile-read', arguments: {} }));
    expect(refusedCall.message).toContain(
      "Policy 'costly-hint' could not judge this call, so it is refused: no such key: costHint (line 1, column 81)",
    );
    const read = (tools.body.items as { id: string; originalName: string }[]).find(
      (tool) => tool.originalName === 'read',
    )!;
    const invoked = await request(t.baseUrl)
      .post(`/api/v1/tools/${read.id}/invoke`)
      .set('Authorization', `Bearer ${operator.token}`)
      .send({ arguments: {} })
      .expect(422);
    expect(invoked.body.detail).toBe(
      "Policy 'costly-hint' could not judge this call, so it is refused: no such key: costHint (line 1, column 81)",
    );
    expect(calls('read')).toBe(1);
    const metrics = (await t.api().get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/portico_policy_errors_total\{policy="costly-hint"\} [1-9]/);
  });

  it("never tells a value of the call in a failed policy's reason: to the caller, the audit trail, the dry run or the logs", async () => {
    const secret = 'hunter2-not-for-the-audit';
    const logged: unknown[][] = [];
    const spies = (['log', 'warn', 'error', 'debug', 'verbose'] as const).map((level) =>
      jest.spyOn(Logger.prototype, level).mockImplementation(function (...parts: unknown[]) {
        logged.push(parts);
      }),
    );
    try {
      await policy({
        name: 'checks-password',
        expression: 'tool.originalName == "write" && bool(args.password)',
        effect: 'deny',
      });
      const args = { password: secret };
      const refusal = `Policy 'checks-password' could not judge this call, so it is refused: bool conversion error (line 1, column 33)`;
      const client = await v1();
      const refused = await eventually(() =>
        rpcError(client.callTool({ name: 'hostile-write', arguments: args })),
      );
      expect(refused.message).toContain(refusal);
      const neu = await modern();
      expect(
        (await failure(neu.callTool({ name: 'hostile-write', arguments: args }))).message,
      ).toContain(refusal);
      const tools = await t.api().get('/api/v1/tools').expect(200);
      const write = (tools.body.items as { id: string; originalName: string }[]).find(
        (tool) => tool.originalName === 'write',
      )!;
      const invoked = await t
        .api()
        .post(`/api/v1/tools/${write.id}/invoke`)
        .send({ arguments: args })
        .expect(422);
      expect(invoked.body.detail).toBe(refusal);
      const dryRun = await t
        .api()
        .post('/api/v1/policies/dry-run')
        .send({ user: 'admin', tools: ['hostile-write'], arguments: args });
      expect(dryRun.text).toContain('bool conversion error');
      const audited = await eventually(async () => {
        const page = await t
          .api()
          .get('/api/v1/audit')
          .query({ action: 'tools/call', tool: 'hostile-write' })
          .expect(200);
        const entries = (page.body.items as { detail: string | null }[]).filter((entry) =>
          entry.detail?.includes(refusal),
        );
        expect(entries.length).toBeGreaterThanOrEqual(2);
        return page.text;
      });
      const exported = await t.api().get('/api/v1/audit').query({ limit: 200 }).expect(200);
      expect(calls('write')).toBe(0);
      for (const told of [
        refused.message,
        invoked.text,
        dryRun.text,
        audited,
        exported.text,
        JSON.stringify(logged),
      ])
        expect(told).not.toContain(secret);
      expect(JSON.stringify(logged)).toContain('bool conversion error');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  describe('in a process of its own', () => {
    let portico: PorticoProcess;
    let database: TestDatabase | null = null;
    let token: string;
    const api = (method: 'post' | 'get', path: string) =>
      request(portico.baseUrl)[method](path).set('Authorization', `Bearer ${token}`);

    beforeAll(async () => {
      database = onPostgres ? await createTestDatabase() : null;
      portico = await startPorticoProcess({
        ADMIN_PASSWORD,
        ...(database ? { DATABASE_URL: database.url } : {}),
      });
      token = (
        await request(portico.baseUrl)
          .post('/api/v1/auth/token')
          .send({ username: 'admin', password: ADMIN_PASSWORD })
          .expect(200)
      ).body.accessToken as string;
      await api('post', '/api/v1/gateways')
        .send({ name: 'hostile', url: upstream.url })
        .expect(201);
      // Each passes the save check near its budget, and is false on the arguments below.
      const near: [string, string][] = [
        ['split-count', 'args.s.split("y").size() == 3'],
        ['loop-over-paths', 'args.l.exists(p, p.startsWith("/etc"))'],
        ['grown-text', 'cel.bind(a, args.s + args.s, a.endsWith("z"))'],
      ];
      for (const [index, [name, expression]] of near.entries())
        await api('post', '/api/v1/policies')
          .send({
            name,
            expression: `tool.originalName == "write" && ${expression}`,
            effect: 'deny',
            priority: index,
          })
          .expect(201);
      // This one cannot judge so long a text within one match's budget: its calls are refused.
      await api('post', '/api/v1/policies')
        .send({
          name: 'regex-on-match',
          expression: 'tool.originalName == "match" && matches(args.s, "^(a+)+$")',
          effect: 'deny',
          priority: 10,
        })
        .expect(201);
    }, 90_000);

    afterAll(async () => {
      await portico.stop();
      await database?.drop();
    });

    it('decides the largest calls or refuses them clearly, in both eras, while /healthz keeps answering', async () => {
      const old = await connectClient(portico.baseUrl, { token, path: '/mcp' });
      clients.push(old);
      // The 2026-07-28 client needs only where Portico is and a token.
      const neu = await modernClient({ baseUrl: portico.baseUrl, token } as TestApp);
      clients.push(neu);
      const args = { s: LONGEST, l: PATHS };
      const writesBefore = calls('write');
      expect(textOf(await old.callTool({ name: 'hostile-write', arguments: args }))).toBe(
        'hostile:write',
      );

      let running = true;
      const healthz: number[] = [];
      const probing = (async () => {
        while (running) {
          const started = performance.now();
          const answer = await fetch(`${portico.baseUrl}/healthz`);
          healthz.push(performance.now() - started);
          expect(answer.status).toBe(200);
          await answer.arrayBuffer();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      // Two at a time, one from each era's client, in four rounds: a burst of many large calls
      // spends far more on their transport and audit (synchronous, on the embedded database)
      // than on their policies, and would measure that.
      const answers: { name: string; text: string | null; error: string | null }[] = [];
      for (let round = 0; round < 4; round += 1) {
        const name = round % 2 === 0 ? 'hostile-write' : 'hostile-match';
        answers.push(
          ...(await Promise.all(
            [old, neu].map((client) =>
              client
                .callTool({ name, arguments: args })
                .then((result) => ({ name, text: textOf(result), error: null }))
                .catch((error: unknown) => ({ name, text: null, error: (error as Error).message })),
            ),
          )),
        );
      }
      running = false;
      await probing;

      for (const answer of answers) {
        if (answer.name === 'hostile-write')
          expect(answer).toMatchObject({ text: 'hostile:write' });
        else {
          expect(answer.error).toContain(
            "Policy 'regex-on-match' could not judge this call, so it is refused: matches: a text of 99999 characters",
          );
          expect(answer.error).not.toContain('Unknown tool');
        }
      }
      expect(calls('write')).toBe(writesBefore + 5);
      expect(calls('match')).toBe(0);
      expect(healthz.length).toBeGreaterThan(2);
      // Not a speed check (the bench measures speed): a policy that held the event loop would
      // hold /healthz for seconds; a bound of 100 ms was exceeded by CI's load alone.
      expect(Math.max(...healthz)).toBeLessThan(1000);
      const refused = await rpcError(old.callTool({ name: 'hostile-match', arguments: args }));
      expect(refused.code).toBe(-32602);
      // Still the same process, still serving.
      await request(portico.baseUrl).get('/healthz').expect(200);
      expect(portico.output()).not.toContain('Fatal');
    });
  });
});
