import { type EverythingServer, startEverythingServer } from '../fixtures/everything-server';
import { startTestApp, type TestApp } from '../support/test-app';

describe('the npm server-everything as an upstream', () => {
  let t: TestApp;
  const servers: EverythingServer[] = [];

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
    await Promise.all(servers.map((server) => server.stop()));
  });

  it.each([
    ['streamableHttp', 'streamable-http', 'Everything'],
    ['sse', 'sse', 'Everything SSE'],
  ] as const)('syncs and calls its tools over %s', async (mode, transport, name) => {
    const server = await startEverythingServer(mode);
    servers.push(server);
    const created = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name, url: server.url, transport })
      .expect(201);
    expect(created.body).toMatchObject({ status: 'healthy', transport, lastError: null });
    expect(created.body.lastSyncReport.conflicts).toEqual([]);
    expect(created.body.lastSyncReport.added).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'get-structured-content']),
    );

    const tools = await t
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId: created.body.id, limit: 500 })
      .expect(200);
    expect(tools.body.total).toBe(created.body.toolCount);
    for (const tool of tools.body.items)
      expect(tool.name).toBe(`${created.body.slug}-${tool.originalName}`);

    const echo = (await t.api().get(`/api/v1/tools/by-name/${created.body.slug}-echo`).expect(200))
      .body;
    expect(echo).toMatchObject({
      title: 'Echo Tool',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', required: ['message'] },
    });
    const result = await t
      .api()
      .post(`/api/v1/tools/${echo.id}/invoke`)
      .send({ arguments: { message: 'hello from Portico' } })
      .expect(200);
    expect(result.body.content).toEqual([{ type: 'text', text: 'Echo: hello from Portico' }]);

    const sum = (
      await t.api().get(`/api/v1/tools/by-name/${created.body.slug}-get-sum`).expect(200)
    ).body;
    const added = await t
      .api()
      .post(`/api/v1/tools/${sum.id}/invoke`)
      .send({ arguments: { a: 2, b: 40 } })
      .expect(200);
    expect(JSON.stringify(added.body.content)).toContain('42');

    const resync = (await t.api().post(`/api/v1/gateways/${created.body.id}/sync`).expect(200))
      .body;
    expect(resync).toMatchObject({
      added: [],
      updated: [],
      removed: [],
      unchanged: created.body.toolCount,
    });
  });
});
