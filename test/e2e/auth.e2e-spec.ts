import request from 'supertest';
import { DataSource } from 'typeorm';
import { loginAgent } from '../support/admin-browser-session';
import { startTestApp, type TestApp, ADMIN_PASSWORD } from '../support/test-app';
import { legacyToken, serverToken } from '../support/tokens';

/** Paths that answer without a token, and nothing else. */
const ALLOWLIST = new Set([
  'POST /api/v1/auth/token',
  'GET /healthz',
  'GET /readyz',
  'GET /admin/login',
  'POST /admin/login',
  'GET /admin/sso/start',
  'GET /admin/sso/callback',
  'GET /.well-known/oauth-protected-resource/mcp',
  'GET /.well-known/oauth-protected-resource/servers/:serverId/mcp',
  // The configuration document's JSON Schema, for editors; it holds no data.
  'GET /api/v1/config/schema',
  // An upstream provider sends the browser back here cross-site, where the (SameSite) session
  // cookie does not come along; the flow's own sealed cookie and state stand in for it.
  'GET /admin/connections/callback',
]);

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

function registeredRoutes(app: TestApp['app']): { method: string; path: string }[] {
  const express = app.getHttpAdapter().getInstance() as unknown as { router: { stack: Layer[] } };
  return express.router.stack
    .filter((layer) => layer.route)
    .flatMap((layer) =>
      Object.keys(layer.route!.methods).map((method) => ({
        method: method.toUpperCase(),
        path: layer.route!.path,
      })),
    );
}

function isAdminPage(path: string): boolean {
  return path === '/admin' || path.startsWith('/admin/') || path === '/oauth/consent';
}

function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) =>
    name === 'name' ? 'gw-tool' : '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b',
  );
}

describe('auth', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers 401 without a token on every registered route outside the allowlist and the admin pages', async () => {
    const routes = registeredRoutes(t.app);
    expect(routes.length).toBeGreaterThan(15);
    const open: string[] = [];
    for (const { method, path } of routes) {
      const key = `${method} ${path}`;
      if (ALLOWLIST.has(key) || isAdminPage(path)) continue;
      const verb = method.toLowerCase() as 'get';
      const agent = request(t.baseUrl);
      const status = await agent[verb](concrete(path))
        .send({})
        .then(
          (response) => response.status,
          (error: Error) => error.message,
        );
      if (status !== 401) open.push(`${key} -> ${status}`);
    }
    expect(open).toEqual([]);
  });

  it('sends every admin page to the login page without a session, and refuses every admin post', async () => {
    const routes = registeredRoutes(t.app).filter(({ path }) => isAdminPage(path));
    expect(routes.filter(({ method }) => method === 'GET').length).toBeGreaterThan(10);
    expect(routes.filter(({ method }) => method === 'POST').length).toBeGreaterThan(8);
    const open: string[] = [];
    for (const { method, path } of routes) {
      const key = `${method} ${path}`;
      if (ALLOWLIST.has(key)) continue;
      const target = concrete(path);
      const response =
        method === 'GET'
          ? await request(t.baseUrl).get(target)
          : await request(t.baseUrl).post(target).type('form').send({ name: 'x' });
      const refused =
        method === 'GET'
          ? response.status === 303 && /^\/admin\/login(\?|$)/.test(response.headers.location ?? '')
          : response.status === 403;
      // A bearer token is no substitute for the session.
      const authorised = request(t.baseUrl);
      const withToken = await (
        method === 'GET' ? authorised.get(target) : authorised.post(target)
      ).set('Authorization', `Bearer ${t.token}`);
      if (!refused || withToken.status !== response.status) {
        open.push(`${key} -> ${response.status}, with a token ${withToken.status}`);
      }
    }
    expect(open).toEqual([]);
  });

  it('refuses every admin post that lacks the session’s CSRF token, even with a session', async () => {
    const { agent } = await loginAgent(t.baseUrl);
    const posts = registeredRoutes(t.app).filter(
      ({ method, path }) => method === 'POST' && isAdminPage(path),
    );
    const accepted: string[] = [];
    for (const { path } of posts) {
      const response = await agent.post(concrete(path)).type('form').send({ name: 'x' });
      if (response.status !== 403) accepted.push(`POST ${path} -> ${response.status}`);
    }
    expect(accepted).toEqual([]);
    await agent.get('/admin').expect(200);
  });

  it('serves the login page to anyone, and refuses a login post without its CSRF token', async () => {
    const page = await request(t.baseUrl).get('/admin/login').expect(200);
    expect(page.text).toContain('name="_csrf"');
    await request(t.baseUrl)
      .post('/admin/login')
      .type('form')
      .send({ username: 'admin', password: ADMIN_PASSWORD })
      .expect(403);
  });

  it.each(['/api/openapi.json', '/api/docs'])('protects %s', async (path) => {
    await request(t.baseUrl).get(path).expect(401);
    await request(t.baseUrl).get(path).set('Cookie', 'portico_session=forged.value').expect(401);
    await request(t.baseUrl)
      .get(path)
      .set('Authorization', `Bearer ${t.token}`)
      .expect((response) => {
        expect([200, 301]).toContain(response.status);
      });
  });

  it('rejects a forged, expired or malformed token', async () => {
    const forged = t.token.slice(0, -4) + (t.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const expired = legacyToken(t, { sub: 'admin', scope: 'admin' }, -10);
    for (const header of [
      `Bearer ${forged}`,
      `Bearer ${expired}`,
      'Bearer',
      `Basic ${t.token}`,
      t.token,
    ]) {
      const response = await request(t.baseUrl)
        .get('/api/v1/gateways')
        .set('Authorization', header)
        .expect(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('issues a token for the admin credentials only', async () => {
    const ok = await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'admin', password: ADMIN_PASSWORD })
      .expect(200);
    expect(ok.body).toMatchObject({ tokenType: 'Bearer', accessToken: expect.any(String) });
    expect(new Date(ok.body.expiresAt).getTime()).toBeGreaterThan(Date.now());
    await request(t.baseUrl)
      .get('/api/v1/gateways')
      .set('Authorization', `Bearer ${ok.body.accessToken}`)
      .expect(200);
    const wrong = await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'admin', password: 'nope-nope' })
      .expect(401);
    expect(wrong.body.code).toBe('auth.invalid_credentials');
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'root', password: ADMIN_PASSWORD })
      .expect(401);
  });

  it('records a login in lastLoginAt without moving the user’s updatedAt, the time of its last edit', async () => {
    const adminOf = async () =>
      (
        (await t.api().get('/api/v1/users').expect(200)).body.items as Record<string, string>[]
      ).find((user) => user.username === 'admin')!;
    const before = await adminOf();
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'admin', password: ADMIN_PASSWORD })
      .expect(200);
    const after = await adminOf();
    expect(Date.parse(after.lastLoginAt!)).toBeGreaterThan(Date.parse(before.lastLoginAt!));
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('refuses REST calls with a token scoped to servers', async () => {
    const server = await t.api().post('/api/v1/servers').send({ name: 'Scoped' }).expect(201);
    const scoped = await serverToken(t, server.body.id as string);
    const response = await request(t.baseUrl)
      .get('/api/v1/gateways')
      .set('Authorization', `Bearer ${scoped}`)
      .expect(403);
    expect(response.body.code).toBe('auth.forbidden');
  });

  it('stores only a hash of the admin password, at the configured cost', async () => {
    const [user] = await t.app
      .get(DataSource)
      .query(`SELECT password_hash FROM app_user WHERE username = 'admin'`);
    expect(t.config.passwordHashing.N).toBe(2 ** 14);
    expect(user.password_hash).toMatch(/^scrypt\$N=16384,r=8,p=1\$/);
    expect(user.password_hash).not.toContain(ADMIN_PASSWORD);
  });

  it('throttles repeated failed logins', async () => {
    const attempt = () =>
      request(t.baseUrl)
        .post('/api/v1/auth/token')
        .send({ username: 'throttled', password: 'wrong-password' });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.body.retryAfterSeconds).toBeGreaterThan(0);
  });
});
