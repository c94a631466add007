import { type Client } from '@modelcontextprotocol/client';
import { type CallToolResult } from '@modelcontextprotocol/client';
import { RequestStateSealer } from '../../src/mcp/core/request-state-seal';
import {
  type ModernEverythingServer,
  startModernEverythingServer,
} from '../fixtures/modern-everything-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { type Fetch, modernClient, rawCall } from '../support/modern-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const REFUSED = 'Invalid or expired requestState';

const text = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

/** Answers each elicitation by what it asks. */
const elicit = (request: { message: string }) => {
  const message = request.message;
  const content: Record<string, string | boolean> = message.includes('color')
    ? { color: 'blue' }
    : message.includes('Confirm')
      ? { ok: true }
      : message.includes('context')
        ? { context: 'testing' }
        : { name: 'Alice' };
  return { action: 'accept' as const, content };
};

/** The readable payload of Portico's state (signed, not encrypted). */
function payloadOf(state: string): Record<string, unknown> & { c: { requestState: string } } {
  return JSON.parse(Buffer.from(state.split('.')[1]!, 'base64url').toString('utf8')) as never;
}

/** Registers the fixture as a gateway; original tool and prompt names to the names /mcp serves. */
async function register(app: TestApp, url: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const gateway = await app
    .api()
    .post('/api/v1/gateways')
    .send({ name: 'Rounds', url })
    .expect(201);
  expect(gateway.body.status).toBe('healthy');
  const tools = await app
    .api()
    .get('/api/v1/tools')
    .query({ gatewayId: gateway.body.id, limit: 500 });
  for (const tool of tools.body.items as { name: string; originalName: string }[])
    names.set(tool.originalName, tool.name);
  return names;
}

describe('Multi Round-Trip Requests relayed between 2026-07-28 clients and upstreams', () => {
  let t: TestApp;
  let upstream: ModernEverythingServer;
  let names: Map<string, string>;
  const clients: Client[] = [];

  const toolName = (original: string) => names.get(original)!;

  /** A first round of the signed-state tool, by hand: Portico's state and the raw answer. */
  const firstRound = async (token = t.token, args: Record<string, unknown> = {}) => {
    const answer = await rawCall(
      t,
      'first',
      { name: toolName('test_input_required_result_request_state'), arguments: args },
      { token },
    );
    return { answer, state: answer.body.result?.requestState as string };
  };
  const retry = (state: string, token = t.token, args: Record<string, unknown> = {}) =>
    rawCall(
      t,
      'retry',
      {
        name: toolName('test_input_required_result_request_state'),
        arguments: args,
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
        requestState: state,
      },
      { token },
    );

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startModernEverythingServer({ legacy: 'reject' });
    names = await register(t, upstream.url);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await t.close();
    await upstream.close();
  });

  it('lets a 2026-07-28 client answer every kind of round of a modern upstream', async () => {
    const client = await modernClient(t, { elicit });
    clients.push(client);
    const call = (original: string) => client.callTool({ name: toolName(original), arguments: {} });
    expect(text(await call('test_input_required_result_elicitation'))).toBe('Hello, Alice!');
    expect(text(await call('test_input_required_result_sampling'))).toContain('Paris');
    expect(text(await call('test_input_required_result_list_roots'))).toBe('Roots: file:///work');
    expect(text(await call('test_input_required_result_request_state'))).toBe(
      'State verified; the round is complete',
    );
    expect(text(await call('test_input_required_result_multi_round'))).toBe('Alice likes blue');
    expect(text(await call('test_input_required_result_multiple_inputs'))).toBe(
      'All three inputs received',
    );
    const prompts = await client.listPrompts();
    const prompt = prompts.prompts.find((p) =>
      p.name.endsWith('test_input_required_result_prompt'),
    );
    const got = await client.getPrompt({ name: prompt!.name });
    expect(got.messages[0]!.content).toMatchObject({ text: 'Use this context: testing' });
  });

  it("hands out the upstream's round with its state sealed inside Portico's, and takes it back", async () => {
    const tool = toolName('test_input_required_result_request_state');
    // The entries of earlier tests are made by now, though perhaps not yet written: none is later.
    const from = new Date(Date.now() + 1).toISOString();
    const audited = async () =>
      (await t.api().get('/api/v1/audit').query({ action: 'tools/call', tool, from })).body
        .items as {
        outcome: string;
        gateway: string;
      }[];
    const { answer, state } = await firstRound();
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe('first');
    expect(answer.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create' } },
    });
    expect(answer.body.result).not.toHaveProperty('ttlMs');
    expect(answer.body.result).not.toHaveProperty('cacheScope');
    expect(state).toMatch(/^ps1\./);
    // The upstream's own state (its SDK's `v1.` format) rides inside, as the upstream minted it.
    expect(payloadOf(state).c.requestState).toMatch(/^v1\./);

    const done = await retry(state);
    expect(done).toMatchObject({ status: 200, body: { id: 'retry' } });
    expect(text(done.body.result)).toBe('State verified; the round is complete');
    // Each request has its entry, newest first: the upstream saw the round's too.
    let entries: { outcome: string; gateway: string }[] = [];
    await waitFor(
      async () => (entries = await audited()).length >= 2,
      'both requests in the audit trail',
    );
    expect(entries).toEqual([
      expect.objectContaining({ outcome: 'ok', gateway: 'rounds' }),
      expect.objectContaining({ outcome: 'input_required', gateway: 'rounds' }),
    ]);
  });

  it('refuses a tampered state, an expired one, and one sent with other arguments', async () => {
    const { state } = await firstRound();
    const [format, body, signature] = state.split('.') as [string, string, string];
    const flipped = `${format}.${body.slice(0, -2)}${body.endsWith('A') ? 'B' : 'A'}${body.slice(-1)}.${signature}`;
    for (const bad of [flipped, `${state}x`, 'v1.not-ours.sig', payloadOf(state).c.requestState]) {
      const refused = await retry(bad);
      expect(refused).toMatchObject({
        status: 200,
        body: { id: 'retry', error: { code: -32602, message: REFUSED } },
      });
    }

    // Issued 700 s ago with the replicas' own key, for this very request: past its 600 s.
    const p = payloadOf(state);
    const past = new RequestStateSealer(t.config.jwtSecret, { now: () => Date.now() - 700_000 });
    const expired = past.seal(
      {
        subject: p.sub as string,
        scope: p.sc as string,
        gatewayId: p.gw as string,
        method: 'tools/call',
        target: p.t as string,
        arguments: {},
      },
      p.c as { kind: 'upstream'; requestState: string },
    );
    expect((await retry(expired)).body.error).toMatchObject({ code: -32602, message: REFUSED });

    const otherArgs = await retry(state, t.token, { note: 'changed' });
    expect(otherArgs.body.error).toMatchObject({ code: -32602, message: REFUSED });
    // The untouched state still works: refusals spend nothing.
    expect(text((await retry(state)).body.result)).toBe('State verified; the round is complete');
  });

  it('refuses a state replayed by another principal', async () => {
    const created = await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'Other', role: 'admin', expiresInDays: 1 })
      .expect(201);
    const other = created.body.token as string;
    const { state } = await firstRound();
    const replayed = await retry(state, other);
    expect(replayed).toMatchObject({
      status: 200,
      body: { id: 'retry', error: { code: -32602, message: REFUSED } },
    });
    // Its own round works for it.
    const own = await firstRound(other);
    expect(text((await retry(own.state, other)).body.result)).toBe(
      'State verified; the round is complete',
    );
  });
});

describeOnPostgres('Multi Round-Trip Requests and listens across two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let upstream: ModernEverythingServer;
  let names: Map<string, string>;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startReplica(a);
    upstream = await startModernEverythingServer({ legacy: 'reject' });
    names = await register(a, upstream.url);
  });

  afterAll(async () => {
    await b.close();
    await a.close();
    await upstream.close();
  });

  it('takes the retry on the replica that did not issue the state', async () => {
    // Every first request goes to A, every retry (it carries the client's answers) to B.
    const hits: string[] = [];
    const fetchVia: Fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      const target = body.includes('"inputResponses"') ? b : a;
      const method = body ? (JSON.parse(body) as { method?: string }).method : init?.method;
      hits.push(`${method}:${target === a ? 'a' : 'b'}`);
      const url = new URL(String(input instanceof Request ? input.url : input));
      return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
    };
    const client = await modernClient(a, { fetchVia, elicit });
    try {
      const rounds = await client.callTool({
        name: names.get('test_input_required_result_multi_round')!,
        arguments: {},
      });
      expect(text(rounds)).toBe('Alice likes blue');
      expect(hits.filter((hit) => hit === 'tools/call:a')).toHaveLength(1);
      expect(hits.filter((hit) => hit === 'tools/call:b')).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('tells a listen on one replica of a tool disabled through the other', async () => {
    const client = await modernClient(b, { elicit });
    try {
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
      const listen = await client.listen({ toolsListChanged: true });
      const name = names.get('test_simple_text')!;
      const tool = (await a.api().get(`/api/v1/tools/by-name/${name}`).expect(200)).body as {
        id: string;
      };
      await a.api().patch(`/api/v1/tools/${tool.id}`).send({ enabled: false }).expect(200);
      await changed;
      expect((await client.listTools()).tools.map((each) => each.name)).not.toContain(name);
      await listen.close();
    } finally {
      await client.close();
    }
  });
});
