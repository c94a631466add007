import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { connectClient, rpcError } from '../support/mcp-client';
import { modernClient } from '../support/modern-client';
import { textOf as htmlText } from '../support/html-text';
import { pageSession } from '../support/identities';
import { ADMIN_PASSWORD, startReplica, startTestApp, type TestApp } from '../support/test-app';
import { serverToken } from '../support/tokens';
import { waitFor } from '../support/wait-for';
import { RateLimiter } from '../../src/rate-limits/rate-limiter.service';

const textOf = (result: unknown) =>
  (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');

/** An upstream with three tools, registered on `t`, and a server serving them all. */
async function catalogue(t: TestApp, upstream: UpstreamFixture) {
  await t.api().post('/api/v1/gateways').send({ name: 'Meter', url: upstream.url }).expect(201);
  const tools = await t.api().get('/api/v1/tools').expect(200);
  const ids: Record<string, string> = Object.fromEntries(
    (tools.body.items as { id: string; originalName: string }[]).map((tool) => [
      tool.originalName,
      tool.id,
    ]),
  );
  const serverId = (
    await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'Metered', toolIds: Object.values(ids) })
      .expect(201)
  ).body.id as string;
  return { ids, serverId };
}

const meterUpstream = () =>
  startUpstream({
    name: 'meter',
    tools: [echoTool('ping', 'meter'), echoTool('pong', 'meter'), echoTool('report', 'meter')],
  });

describe('rate limits', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let ids: Record<string, string>;
  let serverId: string;
  let otherServerId: string;
  const clients: Client[] = [];

  const client = async (token: string, id = serverId) => {
    const connected = await connectClient(t.baseUrl, { token, path: `/servers/${id}/mcp` });
    clients.push(connected);
    return connected;
  };

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await meterUpstream();
    ({ ids, serverId } = await catalogue(t, upstream));
    otherServerId = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Unmetered', toolIds: [ids.ping] })
        .expect(201)
    ).body.id;
  });

  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await t.close();
    await upstream.close();
  });

  it('refuses MCP calls past a per-token limit of a server with when to retry, and the session goes on', async () => {
    const limit = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'token', serverId, toolId: ids.ping, points: 2, windowSeconds: 60 })
      .expect(201);
    expect(limit.body).toMatchObject({ per: 'token', points: 2, windowSeconds: 60, serverId });
    const token = await serverToken(t, serverId, otherServerId);
    const mcp = await client(token);
    for (let i = 0; i < 2; i++)
      expect(textOf(await mcp.callTool({ name: 'meter-ping', arguments: {} }))).toBe('meter:ping');
    const refused = await rpcError(mcp.callTool({ name: 'meter-ping', arguments: {} }));
    expect(refused.code).toBe(-32014);
    expect(refused.message).toMatch(/Rate limit exceeded; retry after \d+ s\./);
    const data = refused.data as { retryAfterSeconds: number; retryAt: string };
    expect(data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(data.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(Date.parse(data.retryAt)).toBeGreaterThan(Date.now());
    // A 2026-07-28 client with the same token is counted alike, and told alike.
    const modern = await modernClient(t, { token, path: `/servers/${serverId}/mcp` });
    try {
      await expect(modern.callTool({ name: 'meter-ping', arguments: {} })).rejects.toMatchObject({
        code: -32014,
        message: expect.stringMatching(/Rate limit exceeded; retry after \d+ s\./) as unknown,
        data: {
          retryAfterSeconds: expect.any(Number) as unknown,
          retryAt: expect.any(String) as unknown,
        },
      });
    } finally {
      await modern.close();
    }

    // The same session still lists and calls what no limit holds back.
    expect((await mcp.listTools()).tools).toHaveLength(3);
    expect(textOf(await mcp.callTool({ name: 'meter-pong', arguments: {} }))).toBe('meter:pong');
    // Another token has its own counter; another server has no limit.
    const other = await client(await serverToken(t, serverId));
    expect(textOf(await other.callTool({ name: 'meter-ping', arguments: {} }))).toBe('meter:ping');
    const elsewhere = await client(token, otherServerId);
    expect(textOf(await elsewhere.callTool({ name: 'meter-ping', arguments: {} }))).toBe(
      'meter:ping',
    );

    const metrics = await t.api().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/portico_rate_limit_rejections_total\{surface="mcp"\} [1-9]/);
  });

  it('counts a person’s tokens together with a per-user limit', async () => {
    await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'user', serverId, toolId: ids.pong, points: 3, windowSeconds: 60 })
      .expect(201);
    const first = await client(await serverToken(t, serverId));
    const second = await client(await serverToken(t, serverId));
    // One call was made by the first test already, by the same person.
    await first.callTool({ name: 'meter-pong', arguments: {} });
    await second.callTool({ name: 'meter-pong', arguments: {} });
    await first.callTool({ name: 'meter-pong', arguments: {} });
    const refused = await rpcError(second.callTool({ name: 'meter-pong', arguments: {} }));
    expect(refused.code).toBe(-32014);
  });

  /** A server with tool search on (nothing always loaded) and a per-token limit of all its tools. */
  const searchedServer = async (name: string, toolIds: string[], points: number) => {
    const id = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name, toolIds, toolSearch: { enabled: true, alwaysLoaded: [] } })
        .expect(201)
    ).body.id as string;
    await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'token', serverId: id, points, windowSeconds: 60 })
      .expect(201);
    return id;
  };

  it('counts tool_search calls against a server’s limit, together with its tool calls', async () => {
    const searched = await searchedServer('Searched', [ids.ping!, ids.pong!], 3);
    // A limit of one tool does not hold back searches: only limits of all tools count them.
    await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'token', serverId: searched, toolId: ids.pong, points: 1, windowSeconds: 60 })
      .expect(201);
    const token = await serverToken(t, searched);
    const mcp = await client(token, searched);
    const search = (query: string) => mcp.callTool({ name: 'tool_search', arguments: { query } });
    expect(textOf(await search('select:meter-ping'))).toContain('meter-ping');
    expect(textOf(await mcp.callTool({ name: 'meter-ping', arguments: {} }))).toBe('meter:ping');
    await search('select:meter-pong');
    const refused = await rpcError(search('ping'));
    expect(refused.code).toBe(-32014);
    expect(refused.message).toMatch(/Rate limit exceeded; retry after \d+ s\./);
    expect((await rpcError(mcp.callTool({ name: 'meter-ping', arguments: {} }))).code).toBe(-32014);
    // A 2026-07-28 client with the same token is counted in the same bucket.
    const modern = await modernClient(t, { token, path: `/servers/${searched}/mcp` });
    try {
      await expect(
        modern.callTool({ name: 'tool_search', arguments: { query: 'ping' } }),
      ).rejects.toMatchObject({ code: -32014 });
    } finally {
      await modern.close();
    }
    // Another token has a bucket of its own.
    const other = await client(await serverToken(t, searched), searched);
    expect(
      textOf(
        await other.callTool({ name: 'tool_search', arguments: { query: 'select:meter-ping' } }),
      ),
    ).toContain('meter-ping');
  });

  it('counts each refused call of a deferred tool, which reads the promotions, against the limit', async () => {
    const searched = await searchedServer('Deferring', [ids.ping!], 2);
    const mcp = await client(await serverToken(t, searched), searched);
    const ping = () => mcp.callTool({ name: 'meter-ping', arguments: {} });
    for (let refused = 0; refused < 2; refused++)
      expect(textOf(await ping())).toContain("Tool 'meter-ping' is deferred");
    expect((await rpcError(ping())).code).toBe(-32014);
  });

  it('deletes the counters of ended windows from PostgreSQL, and keeps the live ones', async () => {
    const db = t.app.get(DataSource);
    const keys = async () =>
      (await db.query<{ key: string }[]>('SELECT key FROM rate_limit_counter'))
        .map((row) => row.key)
        .sort();
    // The counters of the calls above are in windows of 60 s, still open.
    const live = await keys();
    expect(live.length).toBeGreaterThan(0);
    await db.query(
      `INSERT INTO rate_limit_counter (key, points, expire) VALUES ('ended', 3, $1), ('open', 1, NULL)`,
      [Date.now() - 1000],
    );
    await t.app.get(RateLimiter).prune();
    expect(await keys()).toEqual([...live, 'open'].sort());
  });

  it('answers REST invoke past a global limit with 429 and Retry-After', async () => {
    await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'token', toolId: ids.report, points: 1, windowSeconds: 30 })
      .expect(201);
    await t.api().post(`/api/v1/tools/${ids.report}/invoke`).send({ arguments: {} }).expect(200);
    const refused = await t
      .api()
      .post(`/api/v1/tools/${ids.report}/invoke`)
      .send({ arguments: {} })
      .expect(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body.code).toBe('rate_limit.exceeded');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(refused.body.retryAfterSeconds).toBe(retryAfter);
    // A global limit holds on the MCP endpoints too.
    const mcp = await client(t.token, otherServerId);
    const direct = await connectClient(t.baseUrl, { token: t.token });
    clients.push(direct);
    expect((await rpcError(direct.callTool({ name: 'meter-report', arguments: {} }))).code).toBe(
      -32014,
    );
    expect(textOf(await mcp.callTool({ name: 'meter-ping', arguments: {} }))).toBe('meter:ping');
  });

  it('is managed by admins through REST', async () => {
    const created = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'user', points: 100, windowSeconds: 3600 })
      .expect(201);
    const id = created.body.id as string;
    const edited = await t
      .api()
      .patch(`/api/v1/rate-limits/${id}`)
      .send({ points: 50 })
      .expect(200);
    expect(edited.body).toMatchObject({
      id,
      per: 'user',
      points: 50,
      serverId: null,
      toolId: null,
    });
    const list = await t.api().get('/api/v1/rate-limits').expect(200);
    expect(list.body.items.map((item: { id: string }) => item.id)).toContain(id);
    await t.api().delete(`/api/v1/rate-limits/${id}`).expect(204);
    await t.api().get(`/api/v1/rate-limits/${id}`).expect(404);
    const unknown = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({
        per: 'user',
        toolId: '00000000-0000-4000-8000-000000000000',
        points: 1,
        windowSeconds: 1,
      })
      .expect(422);
    expect(unknown.body.code).toBe('rate_limit.unknown_target');
    await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'everyone', points: 0, windowSeconds: 1 })
      .expect(422);
  });

  it('is managed on the admin pages', async () => {
    const { cookie, csrf } = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const page = (path: string) => request(t.baseUrl).get(path).set('Cookie', cookie);
    const post = (path: string, form: Record<string, string>) =>
      request(t.baseUrl)
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf: csrf, ...form });
    expect(htmlText((await page('/admin/rate-limits').expect(200)).text)).toContain('Rate limits');

    const unknown = await post('/admin/rate-limits', {
      per: 'user',
      serverId: serverId,
      tool: 'meter-nothing',
      points: '5',
      windowSeconds: '10',
    }).expect(422);
    expect(htmlText(unknown.text)).toContain("No tool is named 'meter-nothing'.");

    await post('/admin/rate-limits', {
      per: 'user',
      serverId: otherServerId,
      tool: 'meter-ping',
      points: '7',
      windowSeconds: '90',
    }).expect(303);
    const listed = await t.api().get('/api/v1/rate-limits').query({ limit: 500 }).expect(200);
    const made = (listed.body.items as { id: string; points: number }[]).find(
      (item) => item.points === 7,
    );
    expect(made).toMatchObject({ per: 'user', serverId: otherServerId, toolId: ids.ping });
    const shown = htmlText((await page('/admin/rate-limits').expect(200)).text);
    expect(shown).toContain('Unmetered meter-ping 7 calls / 90 s');

    await post(`/admin/rate-limits/${made!.id}/delete`, {}).expect(303);
    await t.api().get(`/api/v1/rate-limits/${made!.id}`).expect(404);
    // Without the CSRF token nothing happens.
    await request(t.baseUrl)
      .post('/admin/rate-limits')
      .set('Cookie', cookie)
      .type('form')
      .send({ per: 'user', points: '1', windowSeconds: '1' })
      .expect(403);
  });
});

/**
 * A sync deletes the row of a tool its upstream stops listing and inserts a new one when it is
 * listed again: a limit on the tool must outlive that, or a tool that leaves for one sync comes
 * back without its limit.
 */
describe('a rate limit on a tool that leaves its upstream for a sync', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await t.close();
    await upstream?.close();
  });

  const register = async (name: string) => {
    const gateway = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name, url: upstream.url })
      .expect(201);
    return gateway.body.id as string;
  };
  const toolId = async (name: string) => {
    const tools = await t.api().get('/api/v1/tools').query({ limit: 500 }).expect(200);
    return (tools.body.items as { id: string; name: string }[]).find((tool) => tool.name === name)
      ?.id;
  };
  const sync = async (gatewayId: string) =>
    (await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200)).body as object;
  const invoke = (id: string) => t.api().post(`/api/v1/tools/${id}/invoke`).send({ arguments: {} });

  it('holds again, with its spent calls, when the tool is listed again, and shows as away meanwhile', async () => {
    upstream = await startUpstream({
      name: 'flap',
      tools: [echoTool('ping', 'flap'), echoTool('pong', 'flap')],
    });
    const gatewayId = await register('Flap');
    const pingId = (await toolId('flap-ping'))!;
    const limit = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'token', toolId: pingId, points: 2, windowSeconds: 3600 })
      .expect(201);
    const id = limit.body.id as string;
    expect(limit.body).toMatchObject({
      toolId: pingId,
      gatewayId,
      toolName: 'ping',
      toolAway: false,
    });
    await invoke(pingId).expect(200);
    await invoke(pingId).expect(200);
    await invoke(pingId).expect(429);

    upstream.removeTool('ping');
    expect(await sync(gatewayId)).toMatchObject({ removed: ['ping'] });
    const away = { id, toolId: null, gatewayId, toolName: 'ping', toolAway: true, points: 2 };
    expect((await t.api().get(`/api/v1/rate-limits/${id}`).expect(200)).body).toMatchObject(away);
    const listed = await t.api().get('/api/v1/rate-limits').expect(200);
    expect(listed.body.items).toEqual([expect.objectContaining(away)]);
    // While its tool is away the limit counts no other tool.
    const pongId = (await toolId('flap-pong'))!;
    for (let i = 0; i < 3; i++) await invoke(pongId).expect(200);

    upstream.setTool(echoTool('ping', 'flap'));
    expect(await sync(gatewayId)).toMatchObject({ added: ['ping'] });
    const backId = (await toolId('flap-ping'))!;
    expect(backId).not.toBe(pingId);
    expect((await t.api().get(`/api/v1/rate-limits/${id}`).expect(200)).body).toMatchObject({
      toolId: backId,
      toolAway: false,
      points: 2,
      windowSeconds: 3600,
    });
    const refused = await invoke(backId).expect(429);
    expect(refused.body.code).toBe('rate_limit.exceeded');
    const mcp = await connectClient(t.baseUrl, { token: t.token });
    clients.push(mcp);
    await waitFor(
      async () => (await mcp.listTools()).tools.some((tool) => tool.name === 'flap-ping'),
      'the tool back in the list',
    );
    expect((await rpcError(mcp.callTool({ name: 'flap-ping', arguments: {} }))).code).toBe(-32014);
  });

  it('is deleted through the API while its tool is away, and the tool comes back without it', async () => {
    const gatewayId = (await t.api().get('/api/v1/gateways').expect(200)).body.items.find(
      (gateway: { slug: string }) => gateway.slug === 'flap',
    ).id as string;
    const limits = await t.api().get('/api/v1/rate-limits').expect(200);
    const id = limits.body.items[0].id as string;
    upstream.removeTool('ping');
    expect(await sync(gatewayId)).toMatchObject({ removed: ['ping'] });
    await t.api().delete(`/api/v1/rate-limits/${id}`).expect(204);
    await t.api().get(`/api/v1/rate-limits/${id}`).expect(404);
    upstream.setTool(echoTool('ping', 'flap'));
    expect(await sync(gatewayId)).toMatchObject({ added: ['ping'] });
    await invoke((await toolId('flap-ping'))!).expect(200);
  });

  it('goes with its gateway, also while its tool is away, and not to a gateway made under the same slug', async () => {
    const gatewayId = (await t.api().get('/api/v1/gateways').expect(200)).body.items.find(
      (gateway: { slug: string }) => gateway.slug === 'flap',
    ).id as string;
    const pongId = (await toolId('flap-pong'))!;
    const onPong = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'user', toolId: pongId, points: 1, windowSeconds: 3600 })
      .expect(201);
    const onPing = await t
      .api()
      .post('/api/v1/rate-limits')
      .send({ per: 'user', toolId: (await toolId('flap-ping'))!, points: 1, windowSeconds: 3600 })
      .expect(201);
    upstream.removeTool('ping');
    expect(await sync(gatewayId)).toMatchObject({ removed: ['ping'] });
    await t.api().delete(`/api/v1/gateways/${gatewayId}`).expect(204);
    await t.api().get(`/api/v1/rate-limits/${onPong.body.id}`).expect(404);
    await t.api().get(`/api/v1/rate-limits/${onPing.body.id}`).expect(404);
    expect((await t.api().get('/api/v1/rate-limits').expect(200)).body.total).toBe(0);

    upstream.setTool(echoTool('ping', 'flap'));
    const again = await register('Flap');
    expect(again).not.toBe(gatewayId);
    for (let i = 0; i < 2; i++) await invoke((await toolId('flap-ping'))!).expect(200);
  });
});

describeOnPostgres.each([
  ['PostgreSQL', {}],
  ...(process.env.REDIS_URL ? [['Redis', { REDIS_URL: process.env.REDIS_URL }] as const] : []),
] as [string, Record<string, string>][])('a rate limit across two replicas (%s)', (_name, env) => {
  let a: TestApp;
  let b: TestApp;
  let upstream: UpstreamFixture;
  const clients: Client[] = [];

  beforeAll(async () => {
    a = await startTestApp({ env });
    b = await startReplica(a, env);
    upstream = await meterUpstream();
  });

  afterAll(async () => {
    for (const connected of clients) await connected.close();
    await b.close();
    await a.close();
    await upstream.close();
  });

  it('is one counter for both', async () => {
    const { serverId } = await catalogue(a, upstream);
    const limitId = (
      await a
        .api()
        .post('/api/v1/rate-limits')
        .send({ per: 'token', serverId, points: 3, windowSeconds: 60 })
        .expect(201)
    ).body.id as string;
    const token = await serverToken(a, serverId);
    const onA = await connectClient(a.baseUrl, { token, path: `/servers/${serverId}/mcp` });
    const onB = await connectClient(b.baseUrl, { token, path: `/servers/${serverId}/mcp` });
    clients.push(onA, onB);
    await onA.callTool({ name: 'meter-ping', arguments: {} });
    await onB.callTool({ name: 'meter-pong', arguments: {} });
    await onA.callTool({ name: 'meter-report', arguments: {} });
    expect((await rpcError(onB.callTool({ name: 'meter-ping', arguments: {} }))).code).toBe(-32014);
    expect((await rpcError(onA.callTool({ name: 'meter-ping', arguments: {} }))).code).toBe(-32014);

    // The counter is where the deployment keeps it: Redis when set, else the database.
    const stored: { key: string }[] = await a.app
      .get(DataSource)
      .query('SELECT key FROM rate_limit_counter WHERE key LIKE $1', [`portico:rl:${limitId}%`]);
    if (env.REDIS_URL) {
      const redis = new Redis(env.REDIS_URL);
      try {
        expect(await redis.keys(`portico:rl:${limitId}*`)).toHaveLength(1);
      } finally {
        await redis.quit();
      }
      expect(stored).toHaveLength(0);
    } else {
      expect(stored).toHaveLength(1);
    }
  });
});
