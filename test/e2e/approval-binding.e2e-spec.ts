import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startModernEverythingServer } from '../fixtures/modern-everything-server';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { connectClient, rpcError } from '../support/mcp-client';
import { acceptingRetry, type Fetch, modernClient, rawCall } from '../support/modern-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const DESTRUCTIVE = 'tool.annotations.destructiveHint == true';
const DROP = 'vault-drop_table';

interface Entry {
  outcome: string;
  approval: { outcome: string; overruledBy?: { name: string } | null } | null;
}

/** The entries with an approval, newest first, once there are `count` of them. */
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
 * Saves a policy that denies every call of the vault's tools, as an admin would meanwhile, tried
 * before the approval policy.
 */
async function denyMeanwhile(app: TestApp): Promise<string> {
  const saved = await app
    .api()
    .post('/api/v1/policies')
    .send({
      name: 'vault-closed',
      expression: "tool.gateway == 'vault'",
      effect: 'deny',
      priority: -100,
    })
    .expect(201);
  return saved.body.id as string;
}

async function vault(): Promise<UpstreamFixture> {
  return startUpstream({
    name: 'vault',
    tools: [echoTool('drop_table', 'vault', { annotations: { destructiveHint: true } })],
  });
}

/**
 * An approval is bound to the exact call (caller, tool, arguments, the policies it was given
 * under, an expiry): the decision in force when the call goes upstream is the one that counts,
 * and one call is asked once, however many input rounds of the upstream's own follow.
 */
describe('Approvals bound to the call', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await vault();
    await t.api().post('/api/v1/gateways').send({ name: 'vault', url: upstream.url }).expect(201);
    await t
      .api()
      .post('/api/v1/policies')
      .send({ name: 'ask', expression: DESTRUCTIVE, effect: 'approve' })
      .expect(201);
  });

  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  it('a deny saved while a 2025 client is asked stops the call', async () => {
    const client = await connectClient(t.baseUrl, {
      token: t.token,
      capabilities: { elicitation: {} },
    });
    let denied = '';
    client.setRequestHandler(ElicitRequestSchema, async () => {
      denied = await denyMeanwhile(t);
      return { action: 'accept', content: {} };
    });
    try {
      const error = await rpcError(client.callTool({ name: DROP, arguments: { table: 'users' } }));
      expect(error.message).toMatch(/Unknown tool/);
      expect(upstream.calls).toHaveLength(0);
    } finally {
      await client.close();
      await t.api().delete(`/api/v1/policies/${denied}`).expect(204);
    }
    // The question is on record as it was asked, the overruled yes when the call ended.
    const [ended, asked] = await approvalsOf(t, DROP, 2);
    expect(ended!.approval).toMatchObject({
      outcome: 'overruled',
      overruledBy: { name: 'vault-closed' },
    });
    expect(asked!.approval).toMatchObject({ outcome: 'asked' });
  });

  it('a deny saved while a 2026-07-28 client holds the round stops its retry', async () => {
    // Throws unless the call is answered with the approval's input round.
    const retry = await acceptingRetry(t, DROP, { table: 'users' });
    const denied = await denyMeanwhile(t);
    try {
      expect((await retry(t, 'answer')).body.error?.message).toMatch(/Unknown tool/);
      expect(upstream.calls).toHaveLength(0);
    } finally {
      await t.api().delete(`/api/v1/policies/${denied}`).expect(204);
    }
  });

  it('asks a 2026-07-28 client once per call, through the upstream’s own input round', async () => {
    const modern = await startModernEverythingServer({ legacy: 'reject' });
    await t.api().post('/api/v1/gateways').send({ name: 'rounds', url: modern.url }).expect(201);
    const policy = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'ask-names',
        expression: "tool.originalName == 'test_input_required_result_elicitation'",
        effect: 'approve',
      })
      .expect(201);
    const asked: string[] = [];
    const client = await modernClient(t, {
      elicit: (params) => {
        asked.push(params.message);
        const content: Record<string, string> = params.message.includes('Approve')
          ? {}
          : { name: 'Alice' };
        return { action: 'accept', content };
      },
    });
    try {
      const result = await client.callTool({
        name: 'rounds-test_input_required_result_elicitation',
        arguments: {},
      });
      expect(JSON.stringify(result.content)).toContain('Hello, Alice!');
      expect(asked).toEqual([expect.stringContaining("Policy 'ask-names'"), 'What is your name?']);
      // Newest first: the call's end, approved though its yes came a round earlier; the upstream's
      // round, which the yes let through; the question.
      const entries = await approvalsOf(t, 'rounds-test_input_required_result_elicitation', 3);
      expect(entries.map((entry) => [entry.outcome, entry.approval!.outcome])).toEqual([
        ['ok', 'approved'],
        ['input_required', 'approved'],
        ['input_required', 'asked'],
      ]);

      // A retry that brings the round's state with other arguments is refused: the yes was for these.
      const approve = await acceptingRetry(t, 'rounds-test_input_required_result_elicitation', {});
      const round = await approve(t, 'again-2');
      const upstreamRound = round.body.result as { requestState: string };
      expect(round.body.result).toMatchObject({ resultType: 'input_required' });
      const forged = await rawCall(t, 'again-3', {
        name: 'rounds-test_input_required_result_elicitation',
        arguments: { other: true },
        inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } },
        requestState: upstreamRound.requestState,
      });
      expect(forged.body.error).toMatchObject({ code: -32602 });

      // A policy change between the rounds voids the carried yes: the person is asked again.
      await t
        .api()
        .patch(`/api/v1/policies/${policy.body.id as string}`)
        .send({ approval: { message: 'Asked again', rememberSeconds: 0 } })
        .expect(200);
      const after = await rawCall(t, 'again-4', {
        name: 'rounds-test_input_required_result_elicitation',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: upstreamRound.requestState,
      });
      expect(after.body.result).toMatchObject({ resultType: 'input_required' });
      expect(JSON.stringify(after.body.result)).toContain('Asked again');
    } finally {
      await client.close();
      await t
        .api()
        .delete(`/api/v1/policies/${policy.body.id as string}`)
        .expect(204);
      await modern.close();
    }
  });

  it('lets a yes through once: a 2026-07-28 retry sent again with its state is refused', async () => {
    const retry = await acceptingRetry(t, DROP, { table: 'once' });
    const before = upstream.calls.length;
    expect((await retry(t, 'yes')).body.result).toMatchObject({ resultType: 'complete' });
    for (const id of ['again', 'and-again'])
      expect((await retry(t, id)).body.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('has let its call of'),
        data: { policy: 'ask', approval: 'replayed' },
      });
    expect(upstream.calls).toHaveLength(before + 1);
    // Newest first: the two replays refused, the call, its question.
    let newest: string[][] = [];
    await waitFor(async () => {
      const entries = await approvalsOf(t, DROP, 4);
      newest = entries.slice(0, 4).map((entry) => [entry.outcome, entry.approval!.outcome]);
      return newest[0]?.[1] === 'replayed' && newest[1]?.[1] === 'replayed';
    }, 'the replays in the audit trail');
    expect(newest).toEqual([
      ['error', 'replayed'],
      ['error', 'replayed'],
      ['ok', 'approved'],
      ['input_required', 'asked'],
    ]);
    // A new call is asked anew, and its own yes holds.
    const next = await acceptingRetry(t, DROP, { table: 'once' });
    expect((await next(t, 'yes-again')).body.result).toMatchObject({ resultType: 'complete' });
    expect(upstream.calls).toHaveLength(before + 2);
  });
});

describeOnPostgres('Approvals bound to the call, across two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let upstream: UpstreamFixture;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startReplica(a);
    upstream = await vault();
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

  it('a deny saved on one replica stops the retry that lands on the other', async () => {
    const split: Fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      const target = body.includes('"inputResponses"') ? b : a;
      const url = new URL(String(input instanceof Request ? input.url : input));
      return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
    };
    let denied = '';
    const client = await modernClient(a, {
      fetchVia: split,
      elicit: () => ({ action: 'accept', content: {} }),
    });
    const legacy = await connectClient(a.baseUrl, {
      token: a.token,
      capabilities: { elicitation: {} },
    });
    legacy.setRequestHandler(ElicitRequestSchema, async () => {
      denied ||= await denyMeanwhile(b);
      return { action: 'accept', content: {} };
    });
    try {
      // The 2025 session on replica A is asked; the deny is saved on replica B meanwhile.
      expect((await rpcError(legacy.callTool({ name: DROP, arguments: {} }))).message).toMatch(
        /Unknown tool/,
      );
      // The modern call is denied at once now, on either replica.
      await expect(client.callTool({ name: DROP, arguments: {} })).rejects.toThrow(/Unknown tool/);
      expect(upstream.calls).toHaveLength(0);
    } finally {
      await client.close();
      await legacy.close();
      if (denied) await b.api().delete(`/api/v1/policies/${denied}`).expect(204);
    }
  });

  it("a 2026-07-28 client's retry on the other replica is judged by the policies saved meanwhile", async () => {
    // Throws unless the call is answered with the approval's input round.
    const retry = await acceptingRetry(a, DROP, { table: 't' });
    const denied = await denyMeanwhile(a);
    try {
      expect((await retry(b, 'answer')).body.error?.message).toMatch(/Unknown tool/);
      expect(upstream.calls).toHaveLength(0);
    } finally {
      await a.api().delete(`/api/v1/policies/${denied}`).expect(204);
    }
  });
});
