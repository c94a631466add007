import { type Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { RememberedApprovals } from '../../src/approvals/remembered-approvals';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { loginAgent } from '../support/admin-browser-session';
import { textOf } from '../support/html-text';
import { connectClient } from '../support/mcp-client';
import { acceptingRetry, type Fetch, modernClient, rawCall } from '../support/modern-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const DESTRUCTIVE = 'tool.annotations.destructiveHint == true';

interface Approval {
  policy: { name: string };
  outcome: string;
  by: string;
  shown: string;
  rememberedUntil?: string;
}

interface Entry {
  action: string;
  target: string;
  outcome: string;
  approval: Approval | null;
}

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };

/** A 2025 client (SDK v1) that answers each elicitation as `answers` says, and keeps what it saw. */
async function legacyClient(
  app: TestApp,
  answer: () => Answer,
  asked: string[],
  capabilities: Record<string, unknown> = { elicitation: {} },
): Promise<LegacyClient> {
  const client = await connectClient(app.baseUrl, { token: app.token, capabilities });
  if ('elicitation' in capabilities)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer();
    });
  return client;
}

async function approvalsOf(app: TestApp, target: string, count: number): Promise<Entry[]> {
  let entries: Entry[] = [];
  await waitFor(async () => {
    const page = await app.api().get('/api/v1/audit').query({ action: 'tools/call', tool: target });
    entries = (page.body.items as Entry[]).filter((entry) => entry.approval !== null);
    return entries.length >= count;
  }, `${count} approvals of ${target} in the audit trail`);
  return entries;
}

/**
 * Approvals asked by the gateway: a policy with the effect `approve` makes Portico ask the
 * caller's user before a destructive tool's call goes upstream, an elicitation on a 2025 session
 * and an input_required round on the 2026-07-28 wire; every answer lands in the audit trail.
 */
describe('Approvals asked by the gateway', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  const drop = 'vault-drop_table';
  const read = 'vault-read_table';

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startUpstream({
      name: 'vault',
      tools: [
        echoTool('drop_table', 'vault', { annotations: { destructiveHint: true } }),
        echoTool('read_table', 'vault', { annotations: { readOnlyHint: true } }),
      ],
    });
    await t.api().post('/api/v1/gateways').send({ name: 'vault', url: upstream.url }).expect(201);
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'destructive-needs-a-yes',
        expression: DESTRUCTIVE,
        effect: 'approve',
        approval: { message: 'This tool deletes data.', rememberSeconds: 3600 },
      })
      .expect(201);
  });

  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  const upstreamCalls = (tool: string) => upstream.calls.filter((c) => c.name === tool).length;

  it('asks a 2025 client by elicitation: a yes goes upstream, a no does not; both audited', async () => {
    const asked: string[] = [];
    let answer: Answer = { action: 'accept', content: {} };
    const client = await legacyClient(t, () => answer, asked);
    try {
      const done = await client.callTool({ name: drop, arguments: { table: 'users' } });
      expect(done.isError).toBeFalsy();
      expect(upstreamCalls('drop_table')).toBe(1);
      expect(asked[0]).toContain("Policy 'destructive-needs-a-yes'");
      expect(asked[0]).toContain('This tool deletes data.');
      expect(asked[0]).toContain('"table":"users"');

      answer = { action: 'decline' };
      await expect(client.callTool({ name: drop, arguments: { table: 'orders' } })).rejects.toThrow(
        /Not approved: admin declined/,
      );
      expect(upstreamCalls('drop_table')).toBe(1);

      // A tool no policy holds is never asked about.
      await client.callTool({ name: read, arguments: {} });
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
    // Newest first: each question is on record as it is asked (the adapter's own round), then the
    // call with its answer.
    const entries = await approvalsOf(t, drop, 4);
    expect(entries.map((entry) => [entry.outcome, entry.approval!.outcome])).toEqual([
      ['error', 'declined'],
      ['input_required', 'asked'],
      ['ok', 'approved'],
      ['input_required', 'asked'],
    ]);
    expect(entries[2]!.approval).toMatchObject({
      policy: { name: 'destructive-needs-a-yes' },
      by: 'admin',
      shown: expect.stringContaining('This tool deletes data.'),
    });

    // The audit page shows each answer beside the call.
    const { agent } = await loginAgent(t.baseUrl);
    const page = await agent.get('/admin/audit').query({ action: 'tools/call' }).expect(200);
    expect(textOf(page.text)).toContain('declined by admin (destructive-needs-a-yes)');
    expect(textOf(page.text)).toContain('approved by admin (destructive-needs-a-yes)');
    expect(textOf(page.text)).toContain('input_required asked admin (destructive-needs-a-yes)');
  });

  it('asks a 2026-07-28 client in an input_required round; declined, then accepted and remembered', async () => {
    const asked: string[] = [];
    let answer: Answer = { action: 'decline' };
    const client = await modernClient(t, {
      elicit: (params) => {
        asked.push(params.message);
        return answer;
      },
    });
    try {
      const before = upstreamCalls('drop_table');
      await expect(client.callTool({ name: drop, arguments: { table: 'a' } })).rejects.toThrow(
        /Not approved/,
      );
      expect(upstreamCalls('drop_table')).toBe(before);

      answer = { action: 'accept', content: { remember: true } };
      const done = await client.callTool({ name: drop, arguments: { table: 'b' } });
      expect(done.isError).toBeFalsy();
      expect(upstreamCalls('drop_table')).toBe(before + 1);

      // Remembered: the next call goes through without a question.
      await client.callTool({ name: drop, arguments: { table: 'c' } });
      expect(asked).toHaveLength(2);
      expect(upstreamCalls('drop_table')).toBe(before + 2);
    } finally {
      await client.close();
    }
    const entries = await approvalsOf(t, drop, 9);
    expect(entries.slice(0, 5).map((entry) => entry.approval!.outcome)).toEqual([
      'remembered',
      'approved',
      'asked',
      'declined',
      'asked',
    ]);
    expect(entries[1]!.approval!.rememberedUntil).toBeDefined();

    const remembered = await t.api().get('/api/v1/approvals').expect(200);
    expect(remembered.body).toEqual([
      expect.objectContaining({ policyName: 'destructive-needs-a-yes', username: 'admin' }),
    ]);
    // The same yes given again renews it (one row), and one stored twice by racing yeses is
    // revoked whole: left over, the other row still let the calls through.
    const { subject, toolId, policyId, policyName } = remembered.body[0];
    const [{ revision }] = await t.app
      .get(DataSource)
      .query(`SELECT policy_revision AS revision FROM approval_grant`);
    const again = { subject, username: 'admin', toolId, revision };
    const policy = { id: policyId, name: policyName };
    await t.app
      .get(RememberedApprovals)
      .remember({ ...again, policy, expiresAt: new Date(Date.now() + 60_000) });
    await t.app.get(DataSource).query(
      `INSERT INTO approval_grant (subject, username, tool_id, policy_id, policy_name, policy_revision, expires_at)
       SELECT subject, username, tool_id, policy_id, policy_name, policy_revision, expires_at FROM approval_grant`,
    );
    const twice = await t.api().get('/api/v1/approvals').expect(200);
    expect(twice.body).toHaveLength(2);
    await t
      .api()
      .delete(`/api/v1/approvals/${twice.body[0].id as string}`)
      .expect(204);
    await t.api().get('/api/v1/approvals').expect(200, []);
  });

  it('refuses clearly where the client cannot be asked, in both eras', async () => {
    const mute = await legacyClient(t, () => ({ action: 'accept' }), [], {});
    try {
      await expect(mute.callTool({ name: drop, arguments: {} })).rejects.toThrow(
        /cannot be asked: it did not declare the elicitation capability/,
      );
    } finally {
      await mute.close();
    }
    const modern = await rawCall(t, 'mute', { name: drop, arguments: {} }, { capabilities: {} });
    expect(modern.body.error).toMatchObject({
      code: -32021,
      message: expect.stringContaining('cannot be asked'),
      data: { requiredCapabilities: { elicitation: {} } },
    });
    const entries = await approvalsOf(t, drop, 11);
    expect(entries.slice(0, 2).map((entry) => entry.approval!.outcome)).toEqual([
      'unavailable',
      'unavailable',
    ]);
  });
  it('puts a question on record as it is asked, though no one ever answers it', async () => {
    const before = upstreamCalls('drop_table');
    const asked = await rawCall(t, 'never-answered', { name: drop, arguments: { table: 'z' } });
    expect(asked.body.result).toMatchObject({ resultType: 'input_required' });
    const entries = await approvalsOf(t, drop, 12);
    expect(entries[0]).toMatchObject({
      action: 'tools/call',
      outcome: 'input_required',
      approval: { outcome: 'asked', by: 'admin', policy: { name: 'destructive-needs-a-yes' } },
    });
    expect(upstreamCalls('drop_table')).toBe(before);
  });

  it('forgets a remembered yes once its policy is edited (what it holds or how it asks), not when it is renamed', async () => {
    const created = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'reads-need-a-yes',
        expression: 'tool.annotations.readOnlyHint == true',
        effect: 'approve',
        approval: { message: 'Reads are watched.', rememberSeconds: 3600 },
      })
      .expect(201);
    const id = created.body.id as string;
    const edit = (change: Record<string, unknown>) =>
      t.api().patch(`/api/v1/policies/${id}`).send(change).expect(200);
    const asked: string[] = [];
    const client = await legacyClient(
      t,
      () => ({ action: 'accept', content: { remember: true } }),
      asked,
    );
    try {
      const call = () => client.callTool({ name: read, arguments: {} });
      await call();
      await call();
      expect(asked).toHaveLength(1);
      await edit({ name: 'reads-need-a-yes-renamed' });
      await call();
      expect(asked).toHaveLength(1);
      await edit({ approval: { message: 'Reads are watched closely.', rememberSeconds: 3600 } });
      await call();
      await call();
      expect(asked).toHaveLength(2);
      await edit({ expression: 'tool.annotations.readOnlyHint == true && principal.name != ""' });
      await call();
      expect(asked).toHaveLength(3);
    } finally {
      await client.close();
    }
    // Newest first: the yes to the new expression, the one after the new message, the first.
    const entries = await approvalsOf(t, read, 9);
    expect(entries.map((entry) => entry.approval!.outcome)).toEqual([
      'approved',
      'asked',
      'remembered',
      'approved',
      'asked',
      'remembered',
      'remembered',
      'approved',
      'asked',
    ]);
    await t.api().delete(`/api/v1/policies/${id}`).expect(204);
    for (const grant of (await t.api().get('/api/v1/approvals').expect(200)).body as {
      id: string;
    }[])
      await t.api().delete(`/api/v1/approvals/${grant.id}`).expect(204);
  });
});

describeOnPostgres('Approvals across two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let upstream: UpstreamFixture;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startReplica(a);
    upstream = await startUpstream({
      name: 'vault',
      tools: [echoTool('drop_table', 'vault', { annotations: { destructiveHint: true } })],
    });
    await a.api().post('/api/v1/gateways').send({ name: 'vault', url: upstream.url }).expect(201);
    await a
      .api()
      .post('/api/v1/policies')
      .send({ name: 'ask', expression: DESTRUCTIVE, effect: 'approve' })
      .expect(201);
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await upstream?.close();
  });

  it("a 2026-07-28 client's answer to the approval round lands on the other replica", async () => {
    const hits: string[] = [];
    const split: Fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      const target = body.includes('"inputResponses"') ? b : a;
      hits.push(target === a ? 'a' : 'b');
      const url = new URL(String(input instanceof Request ? input.url : input));
      return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
    };
    const client = await modernClient(a, {
      fetchVia: split,
      elicit: () => ({ action: 'accept', content: {} }),
    });
    try {
      const done = await client.callTool({ name: 'vault-drop_table', arguments: { table: 'x' } });
      expect(done.isError).toBeFalsy();
      expect(hits).toContain('b');
      expect(upstream.calls).toHaveLength(1);
    } finally {
      await client.close();
    }
    // The question on the replica that asked it, the answer on the one it landed on, newest first.
    const entries = await approvalsOf(b, 'vault-drop_table', 2);
    expect(entries.map((entry) => [entry.outcome, entry.approval!.outcome])).toEqual([
      ['ok', 'approved'],
      ['input_required', 'asked'],
    ]);
    expect(entries[0]!.approval).toMatchObject({ outcome: 'approved', policy: { name: 'ask' } });
  });

  it('a retry whose yes ran the call on one replica is refused on the other', async () => {
    const retry = await acceptingRetry(a, 'vault-drop_table', { table: 'y' });
    const before = upstream.calls.length;
    expect((await retry(b, 'yes')).body.result).toMatchObject({ resultType: 'complete' });
    const [onA, onB] = await Promise.all([retry(a, 'again-a'), retry(b, 'again-b')]);
    for (const replayed of [onA, onB])
      expect(replayed.body.error).toMatchObject({ code: -32602, data: { approval: 'replayed' } });
    expect(upstream.calls).toHaveLength(before + 1);
  });

  it('lets one of two retries sent at once with the same yes through, on whichever replica', async () => {
    const retry = await acceptingRetry(a, 'vault-drop_table', { table: 'z' });
    const before = upstream.calls.length;
    const answers = await Promise.all([retry(a, 'race-a'), retry(b, 'race-b')]);
    expect(answers.filter((answer) => answer.body.result !== undefined)).toHaveLength(1);
    expect(answers.filter((answer) => answer.body.error?.code === -32602)).toHaveLength(1);
    expect(upstream.calls).toHaveLength(before + 1);
  });
});
