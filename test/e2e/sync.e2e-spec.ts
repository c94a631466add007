import { createServer, type Server as HttpServer } from 'node:http';
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Server,
  type Socket,
} from 'node:net';
import { DataSource } from 'typeorm';
import { EventBus, type PorticoEvent } from '../../src/events/event-bus';
import { SyncService } from '../../src/sync/sync.service';
import { writeEndlessly } from '../fixtures/endless-body';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 1500;

describe('upstream sync', () => {
  let t: TestApp;
  const upstreams: UpstreamFixture[] = [];
  const events: PorticoEvent[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) } });
    t.app.get(EventBus).subscribe((event) => events.push(event));
  });

  let markers = 0;

  /**
   * The catalogue events published before this call, once the bus has delivered them: a marker is
   * published last, and the bus keeps order (LISTEN/NOTIFY delivers in commit order).
   */
  async function settledEvents(): Promise<PorticoEvent[]> {
    const marker = `marker-${++markers}`;
    const isMarker = (event: PorticoEvent) =>
      event.type === 'servers.changed' && event.serverIds[0] === marker;
    await t.app.get(EventBus).publish({ type: 'servers.changed', serverIds: [marker] });
    await waitFor(() => events.some(isMarker), 'the bus to deliver its events');
    return events
      .slice(0, events.findIndex(isMarker))
      .filter((event) => event.type === 'catalog.changed');
  }

  async function resetEvents(): Promise<void> {
    await settledEvents();
    events.length = 0;
  }

  afterAll(async () => {
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.close().catch(() => undefined)));
  });

  async function upstream(...args: Parameters<typeof startUpstream>): Promise<UpstreamFixture> {
    const started = await startUpstream(...args);
    upstreams.push(started);
    return started;
  }

  async function register(name: string, url: string, extra: Record<string, unknown> = {}) {
    return (
      await t
        .api()
        .post('/api/v1/gateways')
        .send({ name, url, ...extra })
        .expect(201)
    ).body;
  }

  async function toolsOf(gatewayId: string) {
    const response = await t
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId, limit: 500 })
      .expect(200);
    return response.body.items as {
      id: string;
      name: string;
      originalName: string;
      description: string;
    }[];
  }

  async function gateway(id: string) {
    return (await t.api().get(`/api/v1/gateways/${id}`).expect(200)).body;
  }

  it('syncs two upstreams with the same tool name, and each virtual name reaches its own upstream', async () => {
    const one = await upstream({ name: 'one', tools: [echoTool('get_system_time', 'one')] });
    const two = await upstream({ name: 'two', tools: [echoTool('get_system_time', 'two')] });
    const first = await register('Gateway 1', one.url);
    const second = await register('Gateway 2', two.url);
    expect(first).toMatchObject({
      slug: 'gateway-1',
      status: 'healthy',
      lastError: null,
      toolCount: 1,
      lastSyncReport: {
        added: ['get_system_time'],
        updated: [],
        removed: [],
        unchanged: 0,
        conflicts: [],
      },
    });
    expect(first.lastSyncAt).not.toBeNull();
    expect(first.lastSeenAt).not.toBeNull();
    expect(second.toolCount).toBe(1);

    for (const [name, fixture, label] of [
      ['gateway-1-get_system_time', one, 'one'],
      ['gateway-2-get_system_time', two, 'two'],
    ] as const) {
      const tool = (await t.api().get(`/api/v1/tools/by-name/${name}`).expect(200)).body;
      expect(tool.originalName).toBe('get_system_time');
      const result = await t
        .api()
        .post(`/api/v1/tools/${tool.id}/invoke`)
        .send({ arguments: { zone: 'UTC' } })
        .expect(200);
      expect(result.body).toEqual({
        content: [{ type: 'text', text: `${label}:get_system_time` }],
        structuredContent: { upstream: label, tool: 'get_system_time', args: { zone: 'UTC' } },
      });
      expect(fixture.calls.map((call) => call.name)).toEqual(['get_system_time']);
    }
  });

  it('reports exactly what changed upstream, keeping ids and server membership of kept tools', async () => {
    const fixture = await upstream({
      pageSize: 2,
      tools: ['alpha', 'beta', 'gamma'].map((name) => echoTool(name, 'x')),
    });
    const created = await register('Changing', fixture.url);
    const before = new Map((await toolsOf(created.id)).map((tool) => [tool.originalName, tool.id]));
    const server = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Changing server', toolIds: [...before.values()] })
        .expect(201)
    ).body;

    fixture.setTool(echoTool('beta', 'x', { description: 'beta, now better' }));
    fixture.removeTool('gamma');
    fixture.setTool(echoTool('delta', 'x'));
    await resetEvents();
    const report = (await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200)).body;
    expect(report).toEqual({
      added: ['delta'],
      updated: ['beta'],
      removed: ['gamma'],
      unchanged: 1,
      conflicts: [],
      warnings: [],
    });
    expect(await settledEvents()).toEqual([{ type: 'catalog.changed', gatewayIds: [created.id] }]);

    const after = new Map((await toolsOf(created.id)).map((tool) => [tool.originalName, tool]));
    expect([...after.keys()].sort()).toEqual(['alpha', 'beta', 'delta']);
    expect(after.get('alpha')!.id).toBe(before.get('alpha'));
    expect(after.get('beta')!.id).toBe(before.get('beta'));
    expect(after.get('beta')!.description).toBe('beta, now better');
    const members = (await t.api().get(`/api/v1/servers/${server.id}`).expect(200)).body.toolIds;
    expect([...members].sort()).toEqual([before.get('alpha'), before.get('beta')].sort());
    const [{ count }] = await t.app
      .get(DataSource)
      .query(`SELECT COUNT(*)::int AS count FROM server_tool WHERE tool_id = $1`, [
        before.get('gamma'),
      ]);
    expect(count).toBe(0);

    const stored = await gateway(created.id);
    expect(stored.lastSyncReport).toEqual(report);
    expect(stored.toolCount).toBe(3);

    await resetEvents();
    expect((await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200)).body).toEqual({
      added: [],
      updated: [],
      removed: [],
      unchanged: 3,
      conflicts: [],
      warnings: [],
    });
    expect(await settledEvents()).toEqual([]);
  });

  it('leaves the catalogue as it was when the upstream dies during pagination', async () => {
    let crashOnCursor: string | null = null;
    const fixture = await upstream({
      pageSize: 2,
      tools: ['t1', 't2', 't3', 't4', 't5'].map((name) => echoTool(name, 'x')),
      onListPage: async (cursor) => {
        if (cursor !== undefined && cursor === crashOnCursor) await fixture.crash();
      },
    });
    const created = await register('Dying', fixture.url);
    const before = await toolsOf(created.id);
    expect(before).toHaveLength(5);

    fixture.removeTool('t1');
    fixture.setTool(echoTool('t2', 'x', { description: 'changed' }));
    fixture.setTool(echoTool('t6', 'x'));
    crashOnCursor = '4';
    const failed = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
    expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(failed.body).toMatchObject({ status: 502, code: 'gateway.upstream_unavailable' });
    expect(failed.body.detail).toContain(`Could not sync gateway 'Dying'`);

    expect(await toolsOf(created.id)).toEqual(before);
    const stored = await gateway(created.id);
    expect(stored.status).toBe('unreachable');
    expect(stored.lastError).toEqual(expect.any(String));
    expect(stored.lastSyncReport.added).toHaveLength(5);
  });

  it('leaves the catalogue as it was when a page fails or the upstream sends invalid JSON', async () => {
    let failPages = false;
    const fixture = await upstream({
      pageSize: 1,
      tools: ['p1', 'p2'].map((name) => echoTool(name, 'x')),
      onListPage: (cursor) => {
        if (failPages && cursor !== undefined) throw new Error('page store unavailable');
      },
    });
    const created = await register('Failing page', fixture.url);
    fixture.setTool(echoTool('p3', 'x'));
    failPages = true;
    const failed = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
    expect(failed.body.detail).toContain('page store unavailable');
    expect((await toolsOf(created.id)).map((tool) => tool.originalName)).toEqual(['p1', 'p2']);

    // Two good pages first; then the second page breaks off in the middle of its JSON.
    let truncate = false;
    const page = (id: number, tools: string[], nextCursor?: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: {
          tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })),
          ...(nextCursor ? { nextCursor } : {}),
        },
      });
    const garbage = await rawUpstream((message) => {
      if (message.params?.cursor === undefined) return page(message.id, ['j1'], 'next');
      const second = page(message.id, ['j2']);
      return truncate ? second.slice(0, second.length / 2) : second;
    });
    try {
      const broken = await register('Broken JSON', garbage.url);
      expect(broken).toMatchObject({ status: 'healthy', toolCount: 2 });
      truncate = true;
      const refused = await t.api().post(`/api/v1/gateways/${broken.id}/sync`).expect(502);
      // It answered, if badly: not the code of an upstream that is not there.
      expect(refused.body).toMatchObject({ code: 'gateway.upstream_failing' });
      expect(refused.body.detail).toMatch(/invalid JSON/);
      expect((await toolsOf(broken.id)).map((tool) => tool.originalName)).toEqual(['j1', 'j2']);
      expect(await gateway(broken.id)).toMatchObject({
        status: 'failing',
        lastError: expect.stringMatching(/JSON/),
      });
    } finally {
      await new Promise((resolve) => garbage.server.close(resolve));
    }
  });

  it('tells an upstream that answers with an HTTP error from one that is not there, in sync and invoke', async () => {
    let refuse = false;
    let endless = false;
    const erring = await rawUpstream((message) => {
      if (refuse) return { status: 500, text: 'database on fire', endless };
      if (message.method === 'tools/list')
        return JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { tools: [{ name: 'e1', inputSchema: { type: 'object' } }] },
        });
      if (message.method === 'tools/call')
        return JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [] } });
      const unknown = { code: -32601, message: 'Method not found' };
      return JSON.stringify({ jsonrpc: '2.0', id: message.id, error: unknown });
    });
    try {
      const created = await register('Erring', erring.url);
      expect(created).toMatchObject({ status: 'healthy', toolCount: 1 });
      const [tool] = await toolsOf(created.id);
      await t.api().post(`/api/v1/tools/${tool!.id}/invoke`).send({ arguments: {} }).expect(200);
      refuse = true;
      const invoked = await t
        .api()
        .post(`/api/v1/tools/${tool!.id}/invoke`)
        .send({ arguments: {} })
        .expect(502);
      expect(invoked.body).toMatchObject({ code: 'tool.upstream_failing' });
      expect(invoked.body.detail).toContain('HTTP 500: database on fire');
      const synced = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
      expect(synced.body).toMatchObject({ code: 'gateway.upstream_failing' });
      expect(synced.body.detail).toContain('HTTP 500: database on fire');
      expect(await gateway(created.id)).toMatchObject({ status: 'failing', toolCount: 1 });
      // An error whose body never ends is read as far as the error shows, then dropped.
      endless = true;
      const endlessly = await t
        .api()
        .post(`/api/v1/tools/${tool!.id}/invoke`)
        .send({ arguments: {} })
        .expect(502);
      expect(endlessly.body).toMatchObject({ code: 'tool.upstream_failing' });
      expect(endlessly.body.detail).toContain('HTTP 500: database on firexxxx');
      expect(endlessly.body.detail.length).toBeLessThan(2200);
      await t.api().get(`/api/v1/gateways/${created.id}`).expect(200);
    } finally {
      erring.server.closeAllConnections();
      await new Promise((resolve) => erring.server.close(resolve));
    }
  });

  it('marks an unreachable gateway, explains why, and keeps the others and the API going', async () => {
    const port = await closedPort();
    const down = await register('Down', `http://127.0.0.1:${port}/mcp`);
    expect(down).toMatchObject({ status: 'unreachable', toolCount: 0, lastSyncAt: null });
    expect(down.lastError).toContain('ECONNREFUSED');
    const refused = await t.api().post(`/api/v1/gateways/${down.id}/sync`).expect(502);
    expect(refused.body).toMatchObject({ code: 'gateway.upstream_unavailable' });
    expect(refused.body.detail).toContain(`127.0.0.1:${port}`);

    const silent = await blackhole();
    const fine = await upstream({ tools: [echoTool('ok', 'fine')] });
    try {
      const hanging = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'Silent', url: silent.url })
        .expect(201);
      expect(hanging.body.lastError).toBe(`no answer within ${TIMEOUT_MS} ms`);
      const reached = silent.requests();
      let hangingSettled = false;
      const pending = t
        .api()
        .post(`/api/v1/gateways/${hanging.body.id}/sync`)
        .then((response) => {
          hangingSettled = true;
          return response;
        });
      await waitFor(() => silent.requests() > reached, 'the sync to reach the silent upstream');
      const healthy = await register('Fine', fine.url);
      expect(healthy).toMatchObject({ status: 'healthy', toolCount: 1 });
      await t.api().get('/api/v1/gateways').expect(200);
      expect(hangingSettled).toBe(false);
      const timedOut = await pending;
      expect(timedOut.status).toBe(502);
      expect(timedOut.body.detail).toContain(`no answer within ${TIMEOUT_MS} ms`);
      expect((await gateway(hanging.body.id)).status).toBe('unreachable');
    } finally {
      silent.close();
    }
  });

  it('keeps updatedAt at the last edit: syncs, failures, pings and the era found move only what they observe', async () => {
    const fixture = await upstream({ tools: [echoTool('kept', 'k')] });
    const created = await register('Observed', fixture.url);
    // Registering wrote the era found and the first sync's results after the row itself.
    expect(created).toMatchObject({ status: 'healthy', protocol: { era: '2025' } });
    expect(created.updatedAt).toBe(created.createdAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const synced = await t
      .api()
      .post(`/api/v1/gateways/${created.id}/sync`)
      .then(() => gateway(created.id));
    expect(synced.lastSyncAt > created.lastSyncAt).toBe(true);
    await t.app.get(SyncService).markSeen(created.id);
    await fixture.close();
    await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
    const observed = await gateway(created.id);
    expect(observed.status).toBe('unreachable');
    expect(observed.lastSeenAt > synced.lastSeenAt).toBe(true);
    expect(observed.updatedAt).toBe(created.updatedAt);
    // Activating a gateway that is active syncs it again and changes nothing else; deactivating
    // changes it once, and a second time nothing.
    await t.api().post(`/api/v1/gateways/${created.id}/activate`).expect(200);
    expect((await gateway(created.id)).updatedAt).toBe(created.updatedAt);
    const deactivated = (
      await t.api().post(`/api/v1/gateways/${created.id}/deactivate`).expect(200)
    ).body;
    expect(deactivated.updatedAt > created.updatedAt).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await t.api().post(`/api/v1/gateways/${created.id}/deactivate`).expect(200);
    expect((await gateway(created.id)).updatedAt).toBe(deactivated.updatedAt);

    const edited = (
      await t
        .api()
        .patch(`/api/v1/gateways/${created.id}`)
        .send({ name: 'Observed again' })
        .expect(200)
    ).body;
    expect(edited.updatedAt > deactivated.updatedAt).toBe(true);
  });

  it('sends the stored credentials upstream and never returns them', async () => {
    const secret = 'sk-upstream-7f3a9c';
    const token = 'bearer-token-51d2';
    const keyed = await upstream({
      requiredHeaders: { 'x-api-key': secret },
      tools: [echoTool('keyed', 'k')],
    });
    const bearer = await upstream({
      requiredHeaders: { authorization: `Bearer ${token}` },
      tools: [echoTool('bearer', 'b')],
    });
    const withHeaders = await register('Keyed', keyed.url, {
      auth: { type: 'headers', headers: { 'X-Api-Key': secret } },
    });
    const withBearer = await register('Bearer', bearer.url, { auth: { type: 'bearer', token } });
    expect(withHeaders).toMatchObject({ status: 'healthy', toolCount: 1, authType: 'headers' });
    expect(withBearer).toMatchObject({ status: 'healthy', toolCount: 1, authType: 'bearer' });

    const tool = (await t.api().get('/api/v1/tools/by-name/keyed-keyed').expect(200)).body;
    await t.api().post(`/api/v1/tools/${tool.id}/invoke`).send({}).expect(200);
    expect(keyed.calls).toHaveLength(1);

    const rows = await t.app
      .get(DataSource)
      .query(`SELECT auth_secret FROM gateway WHERE id = ANY($1)`, [
        [withHeaders.id, withBearer.id],
      ]);
    for (const row of rows) {
      expect(row.auth_secret).toMatch(/^v1\./);
      expect(row.auth_secret).not.toContain(secret);
      expect(row.auth_secret).not.toContain(token);
    }

    const wrong = await t
      .api()
      .patch(`/api/v1/gateways/${withBearer.id}`)
      .send({ auth: { type: 'bearer', token: 'not-the-token' } })
      .expect(200);
    expect(wrong.body).toMatchObject({ status: 'failing', toolCount: 1 });
    expect(wrong.body.lastError).toContain('401');

    const bodies = await Promise.all([
      t.api().get('/api/v1/gateways').query({ limit: 500 }),
      t.api().get(`/api/v1/gateways/${withHeaders.id}`),
      t.api().post(`/api/v1/gateways/${withHeaders.id}/sync`),
      t.api().get('/api/v1/tools').query({ limit: 500 }),
    ]);
    for (const response of bodies) {
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(token);
    }
  });

  it('keeps a deactivated gateway’s tools, refuses to sync or call it, and syncs on activation', async () => {
    const fixture = await upstream({ tools: [echoTool('kept', 'd')] });
    const created = await register('Sleepy', fixture.url);
    const [kept] = await toolsOf(created.id);
    await t.api().post(`/api/v1/gateways/${created.id}/deactivate`).expect(200);
    expect((await toolsOf(created.id)).map((tool) => tool.id)).toEqual([kept!.id]);

    fixture.setTool(echoTool('woken', 'd'));
    const refused = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(409);
    expect(refused.body.code).toBe('gateway.disabled');
    const call = await t.api().post(`/api/v1/tools/${kept!.id}/invoke`).send({}).expect(409);
    expect(call.body.code).toBe('gateway.disabled');

    const activated = await t.api().post(`/api/v1/gateways/${created.id}/activate`).expect(200);
    expect(activated.body).toMatchObject({ enabled: true, toolCount: 2 });
    expect(activated.body.lastSyncReport).toMatchObject({ added: ['woken'], unchanged: 1 });

    await t.api().patch(`/api/v1/tools/${kept!.id}`).send({ enabled: false }).expect(200);
    const disabled = await t.api().post(`/api/v1/tools/${kept!.id}/invoke`).send({}).expect(409);
    expect(disabled.body.code).toBe('tool.disabled');
  });

  it('syncs again when the URL changes, but not for a rename', async () => {
    const first = await upstream({ tools: [echoTool('old_tool', 'a')] });
    const second = await upstream({ tools: [echoTool('new_tool', 'b')] });
    const created = await register('Moving', first.url);
    await resetEvents();
    const renamed = await t
      .api()
      .patch(`/api/v1/gateways/${created.id}`)
      .send({ name: 'Moved' })
      .expect(200);
    expect(renamed.body.lastSyncAt).toBe(created.lastSyncAt);
    expect(await settledEvents()).toEqual([{ type: 'catalog.changed', gatewayIds: [created.id] }]);

    const moved = await t
      .api()
      .patch(`/api/v1/gateways/${created.id}`)
      .send({ url: second.url })
      .expect(200);
    expect(moved.body.lastSyncReport).toMatchObject({ added: ['new_tool'], removed: ['old_tool'] });
    expect((await toolsOf(created.id)).map((tool) => tool.name)).toEqual(['moved-new_tool']);
  });

  it('drops a list read from an upstream the gateway no longer points at', async () => {
    let releasePages!: () => void;
    const held = new Promise<void>((resolve) => (releasePages = resolve));
    let hold = false;
    let listings = 0;
    const old = await upstream({
      tools: [echoTool('stale', 'old')],
      onListPage: async () => {
        listings += 1;
        if (hold) await held;
      },
    });
    const fresh = await upstream({ tools: [echoTool('current', 'new')] });
    const created = await register('Repointed', old.url);
    hold = true;
    const reading = listings;
    const slowSync = t
      .api()
      .post(`/api/v1/gateways/${created.id}/sync`)
      .then((response) => response);
    await waitFor(() => listings > reading, 'the sync to be reading the old upstream');
    const edit = t
      .api()
      .patch(`/api/v1/gateways/${created.id}`)
      .send({ url: fresh.url })
      .then((response) => response);
    await waitFor(
      async () => (await gateway(created.id)).url === fresh.url,
      'the new URL to be stored',
    );
    releasePages();

    const superseded = await slowSync;
    expect(superseded.status).toBe(409);
    expect(superseded.body.code).toBe('gateway.sync_superseded');
    const edited = await edit;
    expect(edited.status).toBe(200);
    expect(edited.body.lastSyncReport).toMatchObject({ added: ['current'], removed: ['stale'] });
    expect((await toolsOf(created.id)).map((tool) => tool.originalName)).toEqual(['current']);
  });

  it('announces every gateway change to the other replicas', async () => {
    const created = await register('Announced', `http://127.0.0.1:${await closedPort()}/mcp`);
    await resetEvents();
    await t.api().post(`/api/v1/gateways/${created.id}/deactivate`).expect(200);
    await t.api().post(`/api/v1/gateways/${created.id}/activate`).expect(200);
    await t.api().delete(`/api/v1/gateways/${created.id}`).expect(204);
    expect(await settledEvents()).toEqual(
      Array.from({ length: 3 }, () => ({ type: 'catalog.changed', gatewayIds: [created.id] })),
    );
  });

  it('validates invoke arguments and passes tool failures through as results', async () => {
    const fixture = await upstream({
      tools: [
        {
          definition: { name: 'fails', inputSchema: { type: 'object' } },
          handler: () => ({ content: [{ type: 'text', text: 'no such city' }], isError: true }),
        },
      ],
    });
    await register('Failing tool', fixture.url);
    const tool = (await t.api().get('/api/v1/tools/by-name/failing-tool-fails').expect(200)).body;
    const invalid = await t
      .api()
      .post(`/api/v1/tools/${tool.id}/invoke`)
      .send({ arguments: [1] })
      .expect(422);
    expect(invalid.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'arguments',
    ]);
    await t.api().post(`/api/v1/tools/${tool.id}/invoke`).send({ arguments: 'x' }).expect(422);
    const result = await t
      .api()
      .post(`/api/v1/tools/${tool.id}/invoke`)
      .send({ arguments: {} })
      .expect(200);
    expect(result.body).toEqual({
      content: [{ type: 'text', text: 'no such city' }],
      isError: true,
    });

    await fixture.close();
    const down = await t.api().post(`/api/v1/tools/${tool.id}/invoke`).send({}).expect(502);
    expect(down.body).toMatchObject({ code: 'tool.upstream_unavailable' });
    expect(down.body.detail).toContain(`Calling 'fails' on gateway 'Failing tool' failed`);
  });
});

async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Accepts connections and requests, and never answers. */
async function blackhole(): Promise<{ url: string; requests(): number; close(): void }> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: Server = createTcpServer((socket) => {
    sockets.add(socket);
    // fetch may reuse a kept-alive connection, so what counts is what arrives, not new sockets.
    socket.on('data', () => (requests += 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests: () => requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Speaks just enough MCP over plain JSON responses to get to tools/list, then answers `body`. */
interface RawRequest {
  id: number;
  method: string;
  params?: { cursor?: string };
}

/**
 * An upstream written by hand: it answers initialize, then every request with `answer`'s text, or
 * with the HTTP error it names (whose body, `endless`, never ends).
 */
async function rawUpstream(
  answer: (message: RawRequest) => string | { status: number; text: string; endless?: boolean },
): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      const message = JSON.parse(raw) as Omit<RawRequest, 'id'> & { id?: number };
      if (message.id === undefined) {
        response.writeHead(202).end();
      } else if (message.method === 'initialize') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'raw', version: '1' },
            },
          }),
        );
      } else {
        const answered = answer(message as RawRequest);
        if (typeof answered === 'string')
          response.writeHead(200, { 'content-type': 'application/json' }).end(answered);
        else if (answered.endless) {
          response
            .writeHead(answered.status, { 'content-type': 'text/plain' })
            .write(answered.text);
          writeEndlessly(response);
        } else
          response.writeHead(answered.status, { 'content-type': 'text/plain' }).end(answered.text);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}
