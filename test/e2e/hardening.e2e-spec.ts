import { createServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import request from 'supertest';
import { CatalogueReader } from '../../src/sync/catalogue.reader';
import { csrfOf } from '../support/admin-browser-session';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { serverToken } from '../support/tokens';
import { createTestDatabase } from '../support/test-database';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

/** `[[[…]]]` nested `depth` deep, as raw JSON text. */
function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** An app as configured by default, for the hostile requests and the untrusted client address. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t.close();
});

describe('hostile requests get a clean 4xx', () => {
  it('refuses a body nested 5,000 deep with 400 on the public token route, the API and /mcp', async () => {
    const deep = `{"username":"admin","password":${nested(5000)}}`;
    const statuses = [
      (await request(t.baseUrl).post('/api/v1/auth/token').type('json').send(deep)).status,
      (
        await t
          .api()
          .post('/api/v1/gateways')
          .type('json')
          .send(`{"name":"x","url":"http://127.0.0.1:9/mcp","auth":${nested(5000)}}`)
      ).status,
      (await postMcp(`${t.baseUrl}/mcp`, t.token, `{"jsonrpc":"2.0","id":${nested(5000)}}`)).status,
    ];
    expect(statuses).toEqual([400, 400, 400]);
  });

  it('still takes a body nested as deep as real clients nest', async () => {
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .type('json')
      .send(`{"username":"admin","password":${nested(30)}}`)
      .expect(422);
  });

  it('refuses a Content-Encoding the body does not have with 400 or 415, everywhere', async () => {
    const statuses: Record<string, number[]> = {};
    for (const encoding of ['gzip', 'deflate', 'br']) {
      statuses[encoding] = [
        (
          await t
            .api()
            .post('/api/v1/servers')
            .set('Content-Encoding', encoding)
            .type('json')
            .send('{"name":"plain"}')
        ).status,
        (
          await postMcp(`${t.baseUrl}/mcp`, t.token, initializeRequest(), {
            'Content-Encoding': encoding,
          })
        ).status,
        (
          await request(t.baseUrl)
            .post('/admin/login')
            .set('Content-Encoding', encoding)
            .type('form')
            .send('username=admin&password=x')
        ).status,
      ];
    }
    for (const [encoding, list] of Object.entries(statuses)) {
      for (const status of list)
        expect({ encoding, ok: [400, 415].includes(status) }).toEqual({ encoding, ok: true });
    }
  });

  it('refuses an array where an object is expected, and keeps the stored value', async () => {
    const gateway = (
      await t
        .api()
        .post('/api/v1/gateways')
        .send({
          name: 'Keeps credentials',
          url: 'http://127.0.0.1:9/mcp-keeps',
          auth: { type: 'bearer', token: 'do-not-erase-me' },
        })
        .expect(201)
    ).body;
    const refused = await t
      .api()
      .patch(`/api/v1/gateways/${gateway.id}`)
      .send({ auth: [] })
      .expect(422);
    expect(refused.body.errors.map((error: { field: string }) => error.field)).toContain('auth');
    expect((await t.api().get(`/api/v1/gateways/${gateway.id}`).expect(200)).body.authType).toBe(
      'bearer',
    );
    await t.api().post('/api/v1/servers').send({ name: 'Search', toolSearch: [] }).expect(422);
    const server = (await t.api().post('/api/v1/servers').send({ name: 'Kept' }).expect(201)).body;
    await t.api().patch(`/api/v1/servers/${server.id}`).send({ toolSearch: [] }).expect(422);
    // Validation comes before the lookup, so any well-formed id shows what appConfig accepts.
    await t
      .api()
      .patch('/api/v1/tools/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b')
      .send({ appConfig: [] })
      .expect(422);
  });

  it('adds Retry-After to 429', async () => {
    let limited: request.Response | undefined;
    for (let i = 0; i < 6; i++) {
      limited = await request(t.baseUrl)
        .post('/api/v1/auth/token')
        .send({ username: 'retry-after', password: 'wrong-password' });
    }
    expect(limited!.status).toBe(429);
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
  });

  it.each(['/api/openapi.json', '/api/docs/'])(
    'refuses %s to a token scoped to servers',
    async (path) => {
      const server = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: `Docs ${path}` });
      const scoped = await serverToken(t, server.body.id as string);
      await request(t.baseUrl).get(path).set('Authorization', `Bearer ${scoped}`).expect(403);
    },
  );

  it('sends security headers with Swagger UI', async () => {
    const page = await t.api().get('/api/docs/').expect(200);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
  });
});

/**
 * The admin's login on the admin pages, the login form's cookie sent back by hand (a Secure cookie
 * does not travel back over plain HTTP): the form's cookie line and the session's.
 */
async function adminLogin(
  app: TestApp,
  headers: Record<string, string> = {},
): Promise<{ nonce: string; session: string | undefined }> {
  const form = await request(app.baseUrl).get('/admin/login').expect(200);
  const nonce = [form.headers['set-cookie'] ?? []].flat()[0]!;
  const login = await request(app.baseUrl)
    .post('/admin/login')
    .set(headers)
    .set('Cookie', nonce.split(';')[0]!)
    .type('form')
    .send({ _csrf: csrfOf(form.text), username: 'admin', password: ADMIN_PASSWORD })
    .expect(303);
  const session = [login.headers['set-cookie'] ?? []]
    .flat()
    .find((line: string) => line.startsWith('portico_session='));
  return { nonce, session };
}

describe('client addresses', () => {
  /** An app behind a proxy on 127.0.0.1. */
  let trusting: TestApp;

  beforeAll(async () => {
    trusting = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  });

  afterAll(async () => {
    await trusting.close();
  });

  const wrongLogin = (app: TestApp, forwardedFor: string) =>
    request(app.baseUrl)
      .post('/api/v1/auth/token')
      .set('X-Forwarded-For', forwardedFor)
      .send({ username: 'admin', password: 'wrong-password' });

  // The throttle counts by address and username: no test before fails a login as admin, and none
  // after logs in on this app, so its count starts from nothing here and matters to no other test.
  it('ignores X-Forwarded-For from a peer not in TRUSTED_PROXIES, so it cannot dodge the login throttle', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await wrongLogin(t, `10.0.0.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  // Its failed logins count for the forwarded addresses, not for 127.0.0.1, where the next test
  // logs in.
  it('takes the client address from a proxy named in TRUSTED_PROXIES', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await wrongLogin(trusting, `10.0.0.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it('believes X-Forwarded-Proto from a trusted proxy, for the Secure cookie', async () => {
    const { session } = await adminLogin(trusting, { 'X-Forwarded-Proto': 'https' });
    expect(session).toMatch(/;\s*Secure/i);
  });

  it('marks the session cookie Secure when PUBLIC_URL is https, even over plain HTTP inside', async () => {
    const database = await createTestDatabase();
    const t = await startTestApp({
      database,
      env: { PUBLIC_URL: 'https://portico.example.com', ALLOWED_HOSTS: '127.0.0.1' },
    });
    try {
      const { nonce, session } = await adminLogin(t);
      expect(nonce).toMatch(/^portico_login=.*;\s*Secure/i);
      expect(session).toMatch(/;\s*Secure/i);
    } finally {
      await t.close();
      await database.drop();
    }
  });
});

describe('a manual sync while the first sync of an unresponsive upstream runs', () => {
  let t: TestApp;
  let silent: HttpServer;

  beforeAll(async () => {
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    // The registration answers while its sync still waits for the silent upstream.
    t = await startTestApp({
      env: { UPSTREAM_TIMEOUT_MS: '4000' },
      settings: { syncChangeWaitMs: 1000 },
    });
  });

  afterAll(async () => {
    await t.close();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('joins the running sync rather than listing the upstream a second time', async () => {
    const listings = jest.spyOn(t.app.get(CatalogueReader), 'read');
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const gateway = (
      await t.api().post('/api/v1/gateways').send({ name: 'Silent', url }).expect(201)
    ).body;
    const sync = await t.api().post(`/api/v1/gateways/${gateway.id}/sync`).expect(502);
    expect(sync.body.detail).toMatch(/no answer within 4000 ms/);
    expect(listings).toHaveBeenCalledTimes(1);
  });
});
