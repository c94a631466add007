import request from 'supertest';
import { factories } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('bad input gets a clean 4xx problem', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { BODY_LIMIT_BYTES: '65536' } });
    await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Taken', url: 'http://127.0.0.1:9201/mcp' })
      .expect(201);
    await t.api().post('/api/v1/servers').send({ name: 'Taken server' }).expect(201);
  });

  afterAll(async () => {
    await t.close();
  });

  const expectProblem = (body: Record<string, unknown>, status: number) => {
    expect(body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|node_modules/);
  };

  it.each([
    ['a duplicate name', { name: 'Taken', url: 'http://127.0.0.1:9202/mcp' }, 'gateway.name_taken'],
    [
      'a duplicate slug',
      { name: 'TAKEN!', url: 'http://127.0.0.1:9203/mcp' },
      'gateway.slug_taken',
    ],
    ['a duplicate URL', { name: 'Fresh', url: 'http://127.0.0.1:9201/mcp' }, 'gateway.url_taken'],
  ])('409 for %s', async (_case, body, code) => {
    const response = await t.api().post('/api/v1/gateways').send(body).expect(409);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe(code);
    expectProblem(response.body, 409);
  });

  it.each([
    ['an invalid URL', { name: 'Bad', url: 'not a url' }, 'url'],
    ['a non-http URL', { name: 'Bad', url: 'file:///etc/passwd' }, 'url'],
    ['a URL with credentials', { name: 'Bad', url: 'http://user:pass@127.0.0.1:9/mcp' }, 'url'],
    ['a missing name', { url: 'http://127.0.0.1:9/mcp' }, 'name'],
    ['an unknown field', { name: 'Bad', url: 'http://127.0.0.1:9/mcp', admin: true }, 'admin'],
    [
      'an unknown transport',
      { name: 'Bad', url: 'http://127.0.0.1:9/mcp', transport: 'ws' },
      'transport',
    ],
    [
      'bearer auth without a token',
      { name: 'Bad', url: 'http://127.0.0.1:9/mcp', auth: { type: 'bearer' } },
      'auth.token',
    ],
    [
      'a reserved header',
      {
        name: 'Bad',
        url: 'http://127.0.0.1:9/mcp',
        auth: { type: 'headers', headers: { Host: 'x' } },
      },
      'auth.headers',
    ],
    [
      'a header with a newline',
      {
        name: 'Bad',
        url: 'http://127.0.0.1:9/mcp',
        auth: { type: 'headers', headers: { 'X-A': 'a\r\nb' } },
      },
      'auth.headers',
    ],
  ])('422 for %s, naming the field', async (_case, body, field) => {
    const response = await t.api().post('/api/v1/gateways').send(body).expect(422);
    expectProblem(response.body, 422);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('422 for a name that slugifies to nothing', async () => {
    const response = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: '¿¡!', url: 'http://127.0.0.1:9/x' })
      .expect(422);
    expect(response.body.code).toBe('gateway.slug_empty');
  });

  it('400 for malformed JSON', async () => {
    const response = await t
      .api()
      .post('/api/v1/gateways')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(400);
    expectProblem(response.body, 400);
  });

  it('413 for an oversized body', async () => {
    const response = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'x'.repeat(100_000), url: 'http://127.0.0.1:9/x' })
      .expect(413);
    expectProblem(response.body, 413);
  });

  it.each(['/api/v1/gateways/not-a-uuid', '/api/v1/tools/1', '/api/v1/servers/abc'])(
    '400 for the malformed id in %s',
    async (path) => {
      expectProblem((await t.api().get(path).expect(400)).body, 400);
    },
  );

  it.each(['gateways', 'tools', 'servers'])('404 for an unknown %s id', async (kind) => {
    expectProblem(
      (await t.api().get(`/api/v1/${kind}/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b`).expect(404)).body,
      404,
    );
  });

  it('404 for an unknown virtual name', async () => {
    expect((await t.api().get('/api/v1/tools/by-name/nobody-nothing').expect(404)).body.code).toBe(
      'tool.not_found',
    );
  });

  it('422 for unknown tool ids in a server', async () => {
    const missing = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
    const response = await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'S', toolIds: [missing] })
      .expect(422);
    expect(response.body).toMatchObject({
      code: 'server.unknown_tools',
      unknownToolIds: [missing],
    });
    expect((await t.api().get('/api/v1/servers').expect(200)).body.total).toBe(1);
  });

  it('422 for always-loaded names outside the server', async () => {
    const gateway = await factories(t.app).gateway({ name: 'Always' });
    const [tool] = await factories(t.app).tools(gateway, ['kept']);
    const response = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'S2',
        toolIds: [tool!.id],
        toolSearch: { enabled: true, alwaysLoaded: ['always-kept', 'always-missing'] },
      })
      .expect(422);
    expect(response.body).toMatchObject({
      code: 'server.unknown_always_loaded',
      unknownNames: ['always-missing'],
    });
  });

  it('422 for duplicate always-loaded names', async () => {
    const response = await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'S3', toolSearch: { enabled: true, alwaysLoaded: ['a-b', 'a-b'] } })
      .expect(422);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ field: 'toolSearch.alwaysLoaded' }),
    ]);
  });

  it('409 for a duplicate server name', async () => {
    expect(
      (await t.api().post('/api/v1/servers').send({ name: 'Taken server' }).expect(409)).body.code,
    ).toBe('server.name_taken');
  });

  it('422 for out-of-range paging', async () => {
    await t.api().get('/api/v1/tools').query({ limit: 0 }).expect(422);
    await t.api().get('/api/v1/tools').query({ limit: 'many' }).expect(422);
    await t.api().get('/api/v1/tools').query({ gatewayId: 'x' }).expect(422);
  });

  it('422, changing nothing, for null in place of a field of a PATCH', async () => {
    const gateway = (await t.api().get('/api/v1/gateways').expect(200)).body.items.find(
      (item: { name: string }) => item.name === 'Taken',
    );
    const server = (await t.api().get('/api/v1/servers').expect(200)).body.items[0];
    const tool = (await t.api().get('/api/v1/tools').expect(200)).body.items[0];
    const cases: [string, Record<string, unknown>, string][] = [
      [`/api/v1/gateways/${gateway.id}`, { name: null }, 'name'],
      [`/api/v1/gateways/${gateway.id}`, { url: null }, 'url'],
      [`/api/v1/gateways/${gateway.id}`, { auth: null }, 'auth'],
      [`/api/v1/servers/${server.id}`, { name: null }, 'name'],
      [`/api/v1/servers/${server.id}`, { toolIds: null }, 'toolIds'],
      [`/api/v1/tools/${tool.id}`, { enabled: null }, 'enabled'],
      [`/api/v1/tools/${tool.id}`, { appConfig: { prefab: null } }, 'appConfig.prefab'],
    ];
    for (const [path, body, field] of cases) {
      const response = await t.api().patch(path).send(body).expect(422);
      expectProblem(response.body, 422);
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
    // The circuit breaker and load are this replica's view at the moment, not stored state; the
    // health columns are written meanwhile by the gateway's watch, retrying its dead upstream.
    const stored = ({
      circuit: _circuit,
      load: _load,
      status: _status,
      lastError: _lastError,
      updatedAt: _updatedAt,
      ...rest
    }: Record<string, unknown>) => rest;
    expect(stored((await t.api().get(`/api/v1/gateways/${gateway.id}`).expect(200)).body)).toEqual(
      stored(gateway),
    );
    expect((await t.api().get(`/api/v1/servers/${server.id}`).expect(200)).body).toEqual(server);
    expect((await t.api().get(`/api/v1/tools/${tool.id}`).expect(200)).body).toEqual(tool);
  });

  it('422 for a NUL character anywhere, which PostgreSQL text cannot hold', async () => {
    const refused = [
      t.api().post('/api/v1/gateways').send({ name: 'Nul\u0000', url: 'http://127.0.0.1:9/x' }),
      t.api().post('/api/v1/servers').send({ name: 'S', description: 'a\u0000b' }),
      t.api().get('/api/v1/tools').query({ q: '\u0000' }),
      t.api().get('/api/v1/tools/by-name/a%00b'),
      request(t.baseUrl)
        .post('/api/v1/auth/token')
        .send({ username: 'ad\u0000min', password: 'whatever-it-is' }),
    ];
    for (const pending of refused) {
      const response = await pending.expect(422);
      expectProblem(response.body, 422);
      expect(response.body.detail).toMatch(/must not contain NUL/);
    }
  });

  it('422 for an offset past what the database can count', async () => {
    await t.api().get('/api/v1/tools').query({ offset: '99999999999999999999' }).expect(422);
  });

  it('422 for a URL that outgrows its limit once normalised', async () => {
    const url = `http://127.0.0.1:9/${'é'.repeat(1000)}`;
    const response = await t.api().post('/api/v1/gateways').send({ name: 'Long', url }).expect(422);
    expect(response.body.errors).toEqual([
      { field: 'url', messages: ['url must be at most 2048 characters once normalised'] },
    ]);
  });

  it('keeps every earlier record intact', async () => {
    const gateways = await request(t.baseUrl)
      .get('/api/v1/gateways')
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
    expect(gateways.body.items.map((gateway: { name: string }) => gateway.name)).toEqual([
      'Always',
      'Taken',
    ]);
  });
});
