import { type INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AdminSessionService } from '../../src/auth/admin-session.service';
import { PICKER_LIST_ALL_UP_TO, PICKER_SEARCH_LIMIT } from '../../src/admin/member-picker';
import { truncate } from '../../src/admin/view-helpers';
import { Gateway } from '../../src/gateways/gateway.entity';
import { Server } from '../../src/servers/server.entity';
import { DESCRIPTION_LIMIT } from '../../src/tools/tool-definition';
import { type Tool } from '../../src/tools/tool.entity';
import { csrfOf, loginAgent } from '../support/admin-browser-session';
import { pageSession } from '../support/identities';
import { tableOf, textOf } from '../support/html-text';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { factories, toolDefinition } from '../support/factories';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { ADMIN_PASSWORD, startReplica, startTestApp, type TestApp } from '../support/test-app';

type Agent = Awaited<ReturnType<typeof loginAgent>>['agent'];

const HOSTILE = '<img src=x onerror=alert(1)>';

/** Methods that change something, and so need the CSRF token; ALL is tried as POST. */
const UNSAFE_METHODS = new Map<RequestMethod, 'post' | 'put' | 'patch' | 'delete'>([
  [RequestMethod.POST, 'post'],
  [RequestMethod.PUT, 'put'],
  [RequestMethod.PATCH, 'patch'],
  [RequestMethod.DELETE, 'delete'],
  [RequestMethod.ALL, 'post'],
]);

/**
 * Every handler of every controller mounted under /admin that a form (or anything else) could
 * post to, read from Nest's route metadata, as `post admin/gateways/:id/sync`.
 */
function adminUnsafeRoutes(app: INestApplication): string[] {
  const routes: string[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const base = trimSlashes(Reflect.getMetadata(PATH_METADATA, metatype) as string);
      if (base !== 'admin' && !base.startsWith('admin/')) continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const key of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[key];
        if (key === 'constructor' || typeof handler !== 'function') continue;
        const method = UNSAFE_METHODS.get(
          Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod,
        );
        if (!method) continue;
        const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
        for (const path of paths) {
          routes.push(`${method} ${[base, trimSlashes(path)].filter(Boolean).join('/')}`);
        }
      }
    }
  }
  return routes;
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/** The one row whose cell in `column` reads `text`. */
function rowWith(table: { rows: string[][] }, column: number, text: string): string[] {
  const rows = table.rows.filter((row) => row[column] === text);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** The attributes of one tag, values unescaped. */
function attributesOf(tag: string): Record<string, string> {
  return Object.fromEntries(
    [...tag.matchAll(/\s([a-zA-Z-]+)(?:="([^"]*)")?/g)].map((match) => [
      match[1]!,
      textOf(match[2] ?? ''),
    ]),
  );
}

/** What a browser sends for the page's first post form, before any button is added. */
function fieldsOf(html: string): Record<string, string | string[]> {
  const form =
    /<form method="post" action="\/admin\/servers[^"]*" class="stacked"[\s\S]*?<\/form>/.exec(html);
  if (!form) throw new Error('No server form on the page');
  const fields: Record<string, string | string[]> = {};
  const add = (name: string, value: string) => {
    const current = fields[name];
    fields[name] = current === undefined ? value : [current, value].flat();
  };
  for (const [tag] of form[0].matchAll(/<input[^>]*>/g)) {
    const input = attributesOf(tag);
    if (!input.name) continue;
    if (input.type === 'checkbox' && !('checked' in input)) continue;
    add(input.name, input.type === 'checkbox' ? (input.value ?? 'on') : (input.value ?? ''));
  }
  for (const match of form[0].matchAll(/<textarea([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    add(attributesOf(match[1]!).name!, textOf(match[2]!));
  }
  return fields;
}

/** The name and value that the server form's first submit button adds to the post. */
function firstSubmitOf(html: string): Record<string, string> {
  const form = html.slice(html.indexOf('<form method="post" action="/admin/servers'));
  const button = attributesOf(/<button[^>]*type="submit"[^>]*>/.exec(form)![0]);
  return button.name ? { [button.name]: button.value ?? '' } : {};
}

/** The post a browser makes when Enter is pressed in a text field of the server form. */
function enterIn(
  html: string,
  changes: Record<string, string | string[]>,
): Record<string, string | string[]> {
  return { ...fieldsOf(html), ...changes, ...firstSubmitOf(html) };
}

describe('admin pages', () => {
  let t: TestApp;
  let make: ReturnType<typeof factories>;
  let agent: Agent;
  let csrf: string;
  let gateway: Gateway;
  let tools: Tool[];
  /** What the tests started, closed after the app. */
  const upstreams: { close(): Promise<unknown> }[] = [];

  let adminId: string;

  beforeAll(async () => {
    t = await startTestApp();
    adminId = (await t.api().get('/api/v1/auth/me').expect(200)).body.userId;
    make = factories(t.app);
    gateway = await make.gateway({ name: 'Alpha' });
    tools = await make.tools(gateway, [
      ...Array.from({ length: 29 }, (_, i) => `tool_${String(i).padStart(2, '0')}`),
      toolDefinition('hostile', { description: HOSTILE }),
    ]);
    ({ agent, csrf } = await loginAgent(t.baseUrl));
  });

  afterAll(async () => {
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  });

  async function pagePaths(): Promise<string[]> {
    const server = await make.server({ toolIds: [tools[0]!.id] });
    return [
      '/admin',
      '/admin/gateways',
      '/admin/gateways?page=2',
      '/admin/gateways/new',
      `/admin/gateways/${gateway.id}`,
      `/admin/gateways/${gateway.id}?page=2`,
      `/admin/gateways/${gateway.id}/edit`,
      `/admin/gateways/${gateway.id}/delete`,
      '/admin/tools',
      `/admin/tools?gatewayId=${gateway.id}&q=tool&page=2`,
      '/admin/tools?ask=the+tool',
      `/admin/tools/${tools[0]!.id}`,
      '/admin/servers',
      '/admin/servers/new',
      `/admin/servers/${server.id}`,
      `/admin/servers/${server.id}/edit`,
      `/admin/servers/${server.id}/delete`,
    ];
  }

  it('renders every page for a logged-in admin, with a strict CSP and no caching', async () => {
    for (const path of await pagePaths()) {
      const response = await agent.get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(response.type).toBe('text/html');
      expect(response.text).toMatch(/<h1[ >]/);
      expect(response.text).toContain('<form class="logout" method="post" action="/admin/logout">');
      expect(response.headers['content-security-policy']).toMatch(/script-src 'self';/);
      expect(response.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text).not.toMatch(/<script>|<style>|\sstyle="|\son[a-z]+=/);
    }
  });

  it('ranks tools on the tools page as tool_search does, within the gateway filter', async () => {
    const mailer = await make.gateway({ name: 'Mailer' });
    await make.tools(mailer, [
      toolDefinition('send_email', {
        title: 'Send email',
        description: 'Send an email message to a recipient. Supports attachments.',
        inputSchema: {
          type: 'object',
          properties: { to: { type: 'string' }, body: { type: 'string' } },
          required: ['to'],
        },
      }),
    ]);
    const asked = 'email my boss <b>today</b>';
    const page = (await agent.get('/admin/tools').query({ ask: asked }).expect(200)).text;
    const hits = tableOf(page, 'tool-hits');
    expect(hits.columns).toEqual([
      'S. No.',
      'Virtual name',
      'Title',
      'Description',
      'Required arguments',
    ]);
    expect(hits.rows[0]).toEqual([
      '1',
      'mailer-send_email',
      'Send email',
      'Send an email message to a recipient',
      'to (string)',
    ]);
    expect(page).not.toContain('<b>today</b>');
    expect(page).toContain('email my boss &lt;b&gt;today&lt;/b&gt;');
    // The same request within another gateway finds nothing of the mailer's.
    const within = (
      await agent
        .get('/admin/tools')
        .query({ ask: 'send an email', gatewayId: gateway.id })
        .expect(200)
    ).text;
    expect(within).not.toContain('mailer-send_email');
  });

  it('starts every list with S. No., each column under its own header', async () => {
    const columns = await make.gateway({ name: 'Columns' });
    const long = `long_${'x'.repeat(70)}`;
    const [tool] = await make.tools(columns, [long]);
    const server = await make.server({
      name: 'Columns server',
      toolIds: [tool!.id, tools[0]!.id],
      toolSearch: { enabled: true, alwaysLoaded: [] },
    });
    const stored = (await t.api().get(`/api/v1/gateways/${columns.id}`).expect(200)).body;
    const { visibility } = (await t.api().get(`/api/v1/tools/${tool!.id}`).expect(200)).body;

    const gateways = tableOf((await agent.get('/admin/gateways').expect(200)).text, 'gateways');
    expect(gateways.columns).toEqual([
      'S. No.',
      'Name',
      'Slug',
      'URL',
      'Transport',
      'Status',
      'Tools',
      'Last sync',
      'Actions',
    ]);
    expect(rowWith(gateways, 1, 'Columns')).toEqual([
      expect.stringMatching(/^\d+$/),
      'Columns',
      'columns',
      stored.url,
      'streamable-http',
      'Active Unreachable',
      '1',
      '—',
      'Edit Columns Deactivate Columns Sync now Columns Delete Columns',
    ]);

    const toolTable = tableOf(
      (await agent.get(`/admin/tools?gatewayId=${columns.id}`).expect(200)).text,
      'tools',
    );
    expect(toolTable.columns).toEqual([
      'S. No.',
      'Virtual name',
      'Original name',
      'Gateway',
      'Description',
      'Visibility',
      'Enabled',
    ]);
    expect(toolTable.rows).toEqual([
      [
        '1',
        `columns-${long} Over 64 characters`,
        long,
        'columns',
        `The ${long} tool`,
        visibility.join(', '),
        'Yes',
      ],
    ]);

    const servers = tableOf((await agent.get('/admin/servers').expect(200)).text, 'servers');
    expect(servers.columns).toEqual([
      'S. No.',
      'Name',
      'Tools',
      'Tool search',
      'MCP URL',
      'Actions',
    ]);
    expect(rowWith(servers, 1, 'Columns server')).toEqual([
      expect.stringMatching(/^\d+$/),
      'Columns server',
      '2',
      'On',
      server.mcpUrl,
      'Edit Columns server Delete Columns server',
    ]);
  });

  it('redirects every page to the login page without a session, remembering where to return', async () => {
    for (const path of await pagePaths()) {
      const response = await request(t.baseUrl).get(path).expect(303);
      expect(response.headers.location).toMatch(/^\/admin\/login(\?next=%2Fadmin.*)?$/);
    }
    const response = await request(t.baseUrl).get('/admin/tools?page=2').expect(303);
    expect(response.headers.location).toBe('/admin/login?next=%2Fadmin%2Ftools%3Fpage%3D2');
  });

  it('refuses every admin form post, on every route Nest has, without the session’s CSRF token, changing nothing', async () => {
    const victim = await make.gateway({ name: 'Victim' });
    const victimServer = await make.server({ name: 'Victim server', toolIds: [tools[0]!.id] });
    const idOf: Record<string, string> = {
      'admin/gateways': victim.id,
      'admin/servers': victimServer.id,
      'admin/tools': tools[0]!.id,
    };
    const routes = adminUnsafeRoutes(t.app);
    expect(routes).toEqual(
      expect.arrayContaining(
        [
          'admin/login',
          'admin/logout',
          'admin/gateways',
          'admin/gateways/:id',
          'admin/gateways/:id/activate',
          'admin/gateways/:id/deactivate',
          'admin/gateways/:id/sync',
          'admin/gateways/:id/delete',
          'admin/servers',
          'admin/servers/:id',
          'admin/servers/:id/tokens',
          'admin/servers/:id/delete',
          'admin/tools/:id',
          'admin/tools/:id/invoke',
          'admin/prompts/:id',
          'admin/resources/:id',
          'admin/resources/templates/:id',
          'admin/*path',
        ].map((path) => `post ${path}`),
      ),
    );
    const other = await loginAgent(t.baseUrl);
    for (const route of routes) {
      const [method, pattern] = route.split(' ') as ['post' | 'put' | 'patch' | 'delete', string];
      const base = Object.keys(idOf).find((prefix) => pattern.startsWith(`${prefix}/:id`));
      const path = `/${pattern
        .replace(':id', base ? idOf[base]! : '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b')
        .replace('*path', 'nowhere/at/all')}`;
      for (const token of [undefined, 'forged', other.csrf]) {
        const response = await agent[method](path)
          .type('form')
          .send({
            ...(token ? { _csrf: token } : {}),
            name: 'Changed',
            url: 'http://x/mcp',
            authType: 'none',
            toolIds: tools[1]!.id,
            arguments: '{}',
          });
        expect({ route, path, token, status: response.status }).toEqual({
          route,
          path,
          token,
          status: 403,
        });
        expect(response.text).toContain('Form refused');
      }
    }
    const dataSource = t.app.get(DataSource);
    expect(
      await dataSource.getRepository(Gateway).findOneByOrFail({ id: victim.id }),
    ).toMatchObject({ name: 'Victim', enabled: true });
    expect(
      (await t.api().get(`/api/v1/servers/${victimServer.id}`).expect(200)).body,
    ).toMatchObject({ name: 'Victim server', toolIds: [tools[0]!.id] });
    expect((await t.api().get(`/api/v1/tools/${tools[0]!.id}`).expect(200)).body.enabled).toBe(
      true,
    );
    expect(await dataSource.getRepository(Gateway).countBy({ name: 'Changed' })).toBe(0);
    expect(await dataSource.getRepository(Server).countBy({ name: 'Changed' })).toBe(0);
    await agent.get('/admin').expect(200);
  });

  it('logs in with a hardened session cookie, and out again', async () => {
    const browser = request.agent(t.baseUrl);
    const form = await browser.get('/admin/login').expect(200);
    const login = await browser
      .post('/admin/login')
      .set('X-Forwarded-Proto', 'https')
      .type('form')
      .send({
        _csrf: csrfOf(form.text),
        username: 'admin',
        password: ADMIN_PASSWORD,
        next: '/admin/tools?page=2',
      })
      .expect(303);
    expect(login.headers.location).toBe('/admin/tools?page=2');
    const cookie = [login.headers['set-cookie']]
      .flat()
      .find((line) => line?.startsWith('portico_session='));
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    // The peer is not in TRUSTED_PROXIES, so its X-Forwarded-Proto is not believed.
    expect(cookie).not.toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\//);

    const { agent: plain } = await loginAgent(t.baseUrl);
    const home = await plain.get('/admin').expect(200);
    await plain
      .post('/admin/logout')
      .type('form')
      .send({ _csrf: csrfOf(home.text) })
      .expect(303)
      .expect('Location', '/admin/login');
    const after = await plain.get('/admin/login').expect(200);
    expect(after.text).toContain('You are logged out.');
    await plain.get('/admin').expect(303);

    // A copy of the cookie taken before logging out is refused afterwards, on every route.
    const page = await pageSession(t, 'admin', ADMIN_PASSWORD);
    await request(t.baseUrl).get('/admin').set('Cookie', page.cookie).expect(200);
    await request(t.baseUrl)
      .post('/admin/logout')
      .set('Cookie', page.cookie)
      .type('form')
      .send({ _csrf: page.csrf })
      .expect(303);
    await request(t.baseUrl).get('/admin').set('Cookie', page.cookie).expect(303);
    await request(t.baseUrl).get('/api/docs/').set('Cookie', page.cookie).expect(401);
    await request(t.baseUrl)
      .post('/admin/gateways')
      .set('Cookie', page.cookie)
      .type('form')
      .send({ _csrf: page.csrf, name: 'After logout', url: 'http://127.0.0.1:9/mcp' })
      .expect(403);
    const gateways = await t.api().get('/api/v1/gateways').query({ limit: 500 }).expect(200);
    expect(gateways.body.items.map((g: { name: string }) => g.name)).not.toContain('After logout');
  });

  it('refuses a login form posted without its CSRF token, and shows wrong passwords beside the field', async () => {
    await request(t.baseUrl)
      .post('/admin/login')
      .type('form')
      .send({ username: 'admin', password: ADMIN_PASSWORD })
      .expect(403);
    const browser = request.agent(t.baseUrl);
    const form = await browser.get('/admin/login').expect(200);
    const wrong = await browser
      .post('/admin/login')
      .type('form')
      .send({ _csrf: csrfOf(form.text), username: 'admin', password: 'not-the-password' })
      .expect(401);
    expect(wrong.text).toMatch(/id="password-error">Wrong username or password\.</);
    expect(wrong.text).toContain('value="admin"');
    expect(wrong.text).not.toContain('not-the-password');
    await browser.get('/admin').expect(303);
  });

  it('rate-limits failed logins through the same throttle as the API', async () => {
    const browser = request.agent(t.baseUrl);
    const token = csrfOf((await browser.get('/admin/login')).text);
    const attempt = () =>
      browser
        .post('/admin/login')
        .type('form')
        .send({ _csrf: token, username: 'someone', password: 'wrong-password' });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many failed logins');
  });

  /** A session cookie as another app would sign it: with another secret, or at another time. */
  function sessionCookie(jwtSecret: string, now = Date.now()): string {
    const cookies: string[] = [];
    const response = {
      cookie: (name: string, value: string) => cookies.push(`${name}=${value}`),
      clearCookie: () => undefined,
    };
    new AdminSessionService(t.config, { ...t.config, jwtSecret }, t.config).start(
      { secure: false } as never,
      response as never,
      adminId,
      now,
    );
    return cookies[0]!;
  }

  it('refuses forged, expired and foreign session cookies', async () => {
    await request(t.baseUrl)
      .get('/admin')
      .set('Cookie', sessionCookie(t.config.jwtSecret))
      .expect(200);
    for (const cookie of [
      sessionCookie(t.config.jwtSecret, Date.now() - 9 * 3600 * 1000),
      sessionCookie('another-replica-set-with-another-secret'),
      'portico_session=eyJzdWIiOiJhZG1pbiJ9.forged',
      'portico_session=garbage',
    ]) {
      await request(t.baseUrl).get('/admin').set('Cookie', cookie).expect(303);
    }
  });

  it('refuses a foreign Host on the pages, the REST API and the OAuth server, but not on the probes', async () => {
    const cookie = sessionCookie(t.config.jwtSecret);
    for (const host of [
      'evil.example',
      'evil.example:3000',
      '127.0.0.1.evil.example',
      '[::1].evil.example',
      '[::1]evil',
      '',
    ]) {
      for (const path of [
        '/admin',
        '/admin/login',
        '/api/v1/gateways',
        '/api/docs/',
        '/oauth/authorize',
      ]) {
        const response = await request(t.baseUrl)
          .get(path)
          .set('Host', host)
          .set('Cookie', cookie)
          .set('Authorization', `Bearer ${t.token}`);
        expect([path, host, response.status]).toEqual([path, host, 403]);
        expect(response.body).toMatchObject({ code: 'host_not_allowed' });
      }
      await request(t.baseUrl)
        .post('/admin/login')
        .set('Host', host)
        .type('form')
        .send({ username: 'admin', password: ADMIN_PASSWORD })
        .expect(403);
    }
    await request(t.baseUrl).get('/healthz').set('Host', '10.1.2.3:3000').expect(200);
    await request(t.baseUrl)
      .get('/admin')
      .set('Host', 'LOCALHOST:3000')
      .set('Cookie', cookie)
      .expect(200);
    await request(t.baseUrl)
      .get('/api/v1/gateways')
      .set('Host', '[::1]')
      .set('Authorization', `Bearer ${t.token}`)
      .expect(200);
  });

  it('lets a logged-in admin open the API docs', async () => {
    const response = await agent.get('/api/docs/');
    expect(response.status).toBe(200);
    expect(response.text).toContain('swagger');
    await request(t.baseUrl).get('/api/openapi.json').expect(401);
    const spec = await agent.get('/api/openapi.json').expect(200);
    expect(Object.keys(spec.body.paths).some((path: string) => path.startsWith('/admin'))).toBe(
      false,
    );
  });

  describe('gateways', () => {
    it('registers a token-exchange gateway through the form, never showing its secret', async () => {
      const form = await agent.get('/admin/gateways/new').expect(200);
      expect(form.text).toContain('name="exchangeTokenUrl"');
      expect(form.text).toContain('data-auth="oauth token-exchange"');
      const secret = 'sts-very-secret-456';
      const created = await agent
        .post('/admin/gateways')
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Exchanged',
          url: 'http://127.0.0.1:9/exchanged',
          transport: 'streamable-http',
          authType: 'token-exchange',
          exchangeTokenUrl: 'http://127.0.0.1:9/token',
          exchangeDialect: 'rfc8693',
          exchangeClientAuth: 'client_secret_post',
          exchangeAudience: 'reports',
          oauthClientId: 'portico',
          oauthClientSecret: secret,
        })
        .expect(303);
      const detailPath = created.headers.location as string;
      const id = detailPath.split('/').pop()!;
      const stored = await t.app.get(DataSource).getRepository(Gateway).findOneByOrFail({ id });
      expect(stored.authType).toBe('token-exchange');
      for (const path of [detailPath, `${detailPath}/edit`, '/admin/gateways'])
        expect((await agent.get(path)).text).not.toContain(secret);
      await agent.post(`${detailPath}/delete`).type('form').send({ _csrf: csrf }).expect(303);
    });

    it('registers, edits, deactivates, activates and deletes through the forms, never showing credentials', async () => {
      const secret = 'tok-very-secret-123';
      const created = await agent
        .post('/admin/gateways')
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Beta One',
          url: 'http://127.0.0.1:9/beta',
          transport: 'streamable-http',
          authType: 'bearer',
          token: secret,
        })
        .expect(303);
      const detailPath = created.headers.location as string;
      expect(detailPath).toMatch(/^\/admin\/gateways\/[0-9a-f-]{36}$/);
      const detail = await agent.get(detailPath).expect(200);
      expect(detail.text).toContain(
        'Gateway &#x27;Beta One&#x27; registered, but its upstream did not answer',
      );
      expect(detail.text).toContain('<code>beta-one</code>');
      expect(detail.text).toContain('bearer (stored encrypted, never shown)');
      const id = detailPath.split('/').pop()!;
      for (const path of [detailPath, `${detailPath}/edit`, '/admin/gateways', '/admin']) {
        expect((await agent.get(path)).text).not.toContain(secret);
      }
      expect((await agent.get(detailPath)).text).not.toContain('registered, but');

      await agent
        .post(detailPath)
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Beta Two',
          url: 'http://127.0.0.1:9/beta',
          transport: 'sse',
          authType: 'keep',
        })
        .expect(303)
        .expect('Location', detailPath);
      const stored = await t.app.get(DataSource).getRepository(Gateway).findOneByOrFail({ id });
      expect(stored).toMatchObject({
        name: 'Beta Two',
        slug: 'beta-two',
        transport: 'sse',
        authType: 'bearer',
      });

      await agent
        .post(`${detailPath}/deactivate`)
        .type('form')
        .send({ _csrf: csrf, returnTo: '/admin/gateways' })
        .expect(303)
        .expect('Location', '/admin/gateways');
      const list = await agent.get('/admin/gateways').expect(200);
      expect(list.text).toContain('Gateway &#x27;Beta Two&#x27; deactivated');
      expect(list.text).toContain(`action="/admin/gateways/${id}/activate"`);
      await agent
        .post(`${detailPath}/activate`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303)
        .expect('Location', detailPath);
      expect(
        (await t.app.get(DataSource).getRepository(Gateway).findOneByOrFail({ id })).enabled,
      ).toBe(true);

      const confirm = await agent.get(`${detailPath}/delete`).expect(200);
      expect(confirm.text).toContain('Delete the gateway <strong>Beta Two</strong>?');
      await agent
        .post(`${detailPath}/delete`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303)
        .expect('Location', '/admin/gateways');
      await agent.get(detailPath).expect(404);
    });

    it('shows validation errors and conflicts beside their fields, keeping what was typed', async () => {
      const invalid = await agent
        .post('/admin/gateways')
        .type('form')
        .send({
          _csrf: csrf,
          name: '',
          url: 'ftp://nope',
          authType: 'headers',
          headers: 'Host: evil',
        })
        .expect(422);
      expect(invalid.text).toMatch(/id="name-error">name should not be empty</);
      expect(invalid.text).toMatch(/id="url-error">url must be an absolute http\(s\) URL</);
      expect(invalid.text).toMatch(
        /id="headers-error">headers may not set the reserved header &#x27;Host&#x27;</,
      );
      expect(invalid.text).toContain('value="ftp://nope"');
      expect(invalid.text).toContain('aria-invalid="true"');

      const conflict = await agent
        .post('/admin/gateways')
        .type('form')
        .send({ _csrf: csrf, name: 'Alpha', url: 'http://127.0.0.1:9/other', authType: 'none' })
        .expect(409);
      expect(conflict.text).toMatch(
        /id="name-error">A gateway named &#x27;Alpha&#x27; exists already\.</,
      );
      expect(conflict.text).not.toMatch(/at .*\.ts:\d+/);
    });

    it('answers unknown pages, unknown ids and malformed ids with error pages, not JSON', async () => {
      const unknown = await agent.get('/admin/nowhere/at/all').expect(404);
      expect(unknown.type).toBe('text/html');
      expect(unknown.text).toContain('There is no such admin page.');
      await request(t.baseUrl).get('/admin/nowhere').expect(303);
      const post = await agent
        .post('/admin/nowhere')
        .type('form')
        .send({ _csrf: csrf })
        .expect(404);
      expect(post.type).toBe('text/html');
      await agent
        .get('/admin/assets/admin.css')
        .expect(200)
        .expect('Content-Type', /text\/css/);
      const missing = await agent
        .get('/admin/gateways/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b')
        .expect(404);
      expect(missing.type).toBe('text/html');
      expect(missing.text).toContain('does not exist');
      const malformed = await agent.get('/admin/gateways/not-a-uuid').expect(400);
      expect(malformed.type).toBe('text/html');
    });
  });

  describe('tools', () => {
    it('numbers rows across pages: row 1 of page 2 is 26', async () => {
      const first = await agent.get(`/admin/tools?gatewayId=${gateway.id}`).expect(200);
      const second = await agent.get(`/admin/tools?gatewayId=${gateway.id}&page=2`).expect(200);
      const serials = (html: string) =>
        [...html.matchAll(/<td class="serial">(\d+)<\/td>/g)].map((m) => Number(m[1]));
      expect(serials(first.text)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      expect(serials(second.text)).toEqual([26, 27, 28, 29, 30]);
      expect(second.text).toContain(`href="/admin/tools?gatewayId&#x3D;${gateway.id}" rel="prev"`);
    });

    it('says a page past the end is past the end, not that there are no tools', async () => {
      const past = (await agent.get('/admin/tools?page=99').expect(200)).text;
      expect(past).toContain('No tools on this page. <a href="/admin/tools">Back to page 1</a>.');
      expect(past).toMatch(/\d+ rows on \d+ pages; page 99 is past the last\./);
      expect(past).not.toContain('No tools yet');
      expect(past).not.toContain('Rows 0');

      const filtered = (await agent.get('/admin/tools?q=tool_0&page=99').expect(200)).text;
      expect(filtered).toContain('<a href="/admin/tools?q&#x3D;tool_0">Back to page 1</a>');
      expect(filtered).not.toContain('No tool matches this filter');
      const none = (await agent.get('/admin/tools?q=matches-nothing&page=3').expect(200)).text;
      expect(none).toContain('No tool matches this filter.');

      const gatewayPage = (await agent.get(`/admin/gateways/${gateway.id}?page=99`).expect(200))
        .text;
      expect(gatewayPage).toContain(
        `No tools on this page. <a href="/admin/gateways/${gateway.id}">Back to page 1</a>.`,
      );
      expect(gatewayPage).toContain('30 rows on 2 pages; page 99 is past the last.');
      expect(gatewayPage).not.toContain('No tools stored');
      const empty = await make.gateway({ name: 'Empty' });
      const emptyPage = (await agent.get(`/admin/gateways/${empty.id}`).expect(200)).text;
      expect(emptyPage).toContain('No tools stored for this gateway.');
    });

    it('escapes a hostile description on the list and the detail page', async () => {
      const hostile = tools.find((tool) => tool.originalName === 'hostile')!;
      for (const path of ['/admin/tools?q=hostile', `/admin/tools/${hostile.id}`]) {
        const html = (await agent.get(path).expect(200)).text;
        expect(html).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
        expect(html).not.toContain('<img');
      }
    });

    it('filters by gateway and text, and flags long names', async () => {
      const other = await make.gateway({ name: 'Gamma' });
      await make.tools(other, ['tool_00', `long_${'x'.repeat(70)}`]);
      const filtered = await agent.get(`/admin/tools?gatewayId=${other.id}`).expect(200);
      expect(filtered.text.match(/<td class="serial">/g)).toHaveLength(2);
      expect(filtered.text.match(/Over 64 characters/g)).toHaveLength(1);
      const text = await agent.get('/admin/tools?q=tool_00').expect(200);
      expect(text.text).toContain('alpha-tool_00');
      expect(text.text).toContain('gamma-tool_00');
      expect(text.text).not.toContain('alpha-tool_01');
      const bad = await agent.get('/admin/tools?gatewayId=nope').expect(422);
      expect(bad.text).toMatch(/id="filter-gateway-error">gatewayId must be a UUID</);
    });

    it('shows the schema and saves settings through the same service as the API', async () => {
      const tool = tools[1]!;
      const page = await agent.get(`/admin/tools/${tool.id}`).expect(200);
      expect(page.text).toContain('&quot;type&quot;: &quot;object&quot;');
      await agent
        .post(`/admin/tools/${tool.id}`)
        .type('form')
        .send({ _csrf: csrf, prefab: 'on' })
        .expect(303);
      const api = await t.api().get(`/api/v1/tools/${tool.id}`).expect(200);
      expect(api.body).toMatchObject({ enabled: false, appConfig: { prefab: true } });
      const after = await agent.get(`/admin/tools/${tool.id}`).expect(200);
      expect(after.text).toContain('Tool &#x27;alpha-tool_01&#x27; saved.');
      await agent
        .post(`/admin/tools/${tool.id}`)
        .type('form')
        .send({ _csrf: csrf, enabled: 'on', prefab: 'on' })
        .expect(303);
      expect((await t.api().get(`/api/v1/tools/${tool.id}`)).body.enabled).toBe(true);
    });
  });

  describe('servers', () => {
    it('creates a server from picked tools, edits and deletes it', async () => {
      const [one, two] = [tools[2]!, tools[3]!];
      const form = await agent.get('/admin/servers/new').expect(200);
      expect(form.text).toContain(`name="toolIds" value="${one.id}"`);
      expect(form.text).toMatch(/<summary>Alpha/);
      const created = await agent
        .post('/admin/servers')
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Support',
          description: 'For agents',
          enabled: 'on',
          toolIds: [one.id, two.id],
        })
        .expect(303);
      const detailPath = created.headers.location as string;
      const id = detailPath.split('/').pop()!;
      const detail = await agent.get(detailPath).expect(200);
      expect(detail.text).toContain('Server &#x27;Support&#x27; created with 2 tools.');
      expect(detail.text).toContain(`${t.config.publicUrl}/servers/${id}/mcp`);
      expect(detail.text.match(/<td class="serial">/g)).toHaveLength(2);

      const edit = await agent.get(`${detailPath}/edit`).expect(200);
      expect(edit.text).toContain(`value="${one.id}" id="tool-${one.id}" checked`);
      const refused = await agent
        .post(detailPath)
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Support',
          toolIds: [one.id],
          toolSearchEnabled: 'on',
          alwaysLoaded: 'alpha-tool_03',
        })
        .expect(422);
      expect(refused.text).toMatch(
        /id="alwaysLoaded-error">toolSearch\.alwaysLoaded names tools that are not in this server: alpha-tool_03\.</,
      );
      expect(refused.text).toContain(`value="${one.id}" id="tool-${one.id}" checked`);
      expect(refused.text).not.toContain(`value="${two.id}" id="tool-${two.id}" checked`);

      await agent
        .post(detailPath)
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Support',
          toolIds: one.id,
          toolSearchEnabled: 'on',
          alwaysLoaded: 'alpha-tool_02',
        })
        .expect(303);
      const api = await t.api().get(`/api/v1/servers/${id}`).expect(200);
      expect(api.body).toMatchObject({
        enabled: false,
        toolIds: [one.id],
        toolSearch: { enabled: true, alwaysLoaded: ['alpha-tool_02'] },
      });

      const list = await agent.get('/admin/servers').expect(200);
      expect(list.text).toContain(api.body.mcpUrl);
      await agent
        .post(`${detailPath}/delete`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303)
        .expect('Location', '/admin/servers');
      await t.api().get(`/api/v1/servers/${id}`).expect(404);
    });

    it('issues a token scoped to the server, shown once', async () => {
      const server = await make.server({ toolIds: [tools[0]!.id] });
      const page = await agent
        .post(`/admin/servers/${server.id}/tokens`)
        .type('form')
        .send({ _csrf: csrf, ttlSeconds: '3600' })
        .expect(200);
      const token = /<code class="copy" id="issued-token">([^<]+)<\/code>/.exec(page.text)![1]!;
      const listed = (await t.api().get('/api/v1/tokens').expect(200)).body.items;
      expect(listed).toContainEqual(
        expect.objectContaining({ serverIds: [server.id], prefix: token.slice(0, 10) }),
      );
      await request(t.baseUrl)
        .get('/api/v1/servers')
        .set('Authorization', `Bearer ${token}`)
        .expect(403);
      expect((await agent.get(`/admin/servers/${server.id}`).expect(200)).text).not.toContain(
        token,
      );
      const refused = await agent
        .post(`/admin/servers/${server.id}/tokens`)
        .type('form')
        .send({ _csrf: csrf, ttlSeconds: '5' })
        .expect(422);
      expect(refused.text).toMatch(/id="ttlSeconds-error">ttlSeconds must not be less than 60</);
      expect(refused.text).not.toContain('id="issued-token"');
    });

    it('shows a taken name beside the name field', async () => {
      await make.server({ name: 'Taken' });
      const response = await agent
        .post('/admin/servers')
        .type('form')
        .send({ _csrf: csrf, name: 'Taken' })
        .expect(409);
      expect(response.text).toMatch(
        /id="name-error">A server named &#x27;Taken&#x27; exists already\.</,
      );
    });
  });

  it('counts the catalogue and lists unreachable and failing gateways, last syncs and how to connect on the dashboard', async () => {
    const down = await make.gateway({ name: `Down ${HOSTILE}` });
    // Reachable, but every answer is an HTTP error: failing, not unreachable.
    const broken = createServer((_, response) => response.writeHead(500).end('it broke'));
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    upstreams.push({ close: () => new Promise((resolve) => broken.close(resolve)) });
    const registered = await agent
      .post('/admin/gateways')
      .type('form')
      .send({
        _csrf: csrf,
        name: 'Answers 500',
        url: `http://127.0.0.1:${(broken.address() as AddressInfo).port}/mcp`,
        transport: 'streamable-http',
        authType: 'none',
      })
      .expect(303);
    const failingPage = (await agent.get(registered.headers.location as string).expect(200)).text;
    expect(failingPage).toContain(
      'Gateway &#x27;Answers 500&#x27; registered, but its upstream answered with an error',
    );
    expect(failingPage).toContain('<span class="badge badge-bad">Failing</span>');
    const healthy = await startUpstream({
      name: 'dashboard-upstream',
      tools: [echoTool('one', 'dashboard-upstream'), echoTool('two', 'dashboard-upstream')],
    });
    // Kept running through the test: a gateway whose upstream goes away is soon marked unreachable.
    upstreams.push(healthy);
    const synced = await make.gateway({ name: 'Synced', url: healthy.url });
    const servers = [
      await make.server({ name: 'Dash one', toolIds: [tools[0]!.id] }),
      await make.server({ name: 'Dash two', toolIds: [tools[1]!.id, tools[2]!.id] }),
    ];
    const downApi = (await t.api().get(`/api/v1/gateways/${down.id}`).expect(200)).body;
    expect(downApi).toMatchObject({ status: 'unreachable', lastError: expect.any(String) });

    const html = (await agent.get('/admin').expect(200)).text;
    const total = async (path: string) => (await t.api().get(path).expect(200)).body.total;
    expect(html).toContain(
      `<span class="count" id="count-gateways">${await total('/api/v1/gateways')}</span>`,
    );
    expect(html).toContain(
      `<span class="count" id="count-tools">${await total('/api/v1/tools')}</span>`,
    );
    expect(html).toContain(
      `<span class="count" id="count-servers">${await total('/api/v1/servers')}</span>`,
    );
    expect(html).toContain(`<code class="copy">${t.config.publicUrl}/mcp</code>`);
    expect(html).not.toContain('<img');

    const unhealthy = tableOf(html, 'unhealthy');
    expect(unhealthy.columns).toEqual(['S. No.', 'Gateway', 'Status', 'Last error', 'Last seen']);
    const downRow = rowWith(unhealthy, 1, `Down ${HOSTILE}`);
    // The gateway keeps being retried meanwhile (its circuit may open), which rewrites its last
    // error: the page shows the one it had before or after the page was made.
    const downAfter = (await t.api().get(`/api/v1/gateways/${down.id}`).expect(200)).body;
    expect(downRow[2]).toBe('unreachable');
    expect(
      [downApi.lastError, downAfter.lastError].map((error: string) => truncate(error, 200)),
    ).toContain(downRow[3]);
    expect(html).toContain(`<a href="/admin/gateways/${down.id}">Down &lt;img`);
    const failingRow = rowWith(unhealthy, 1, 'Answers 500');
    expect(failingRow[2]).toBe('failing');
    expect(failingRow[3]).toContain('500');
    expect(unhealthy.rows.map((row) => row[1])).not.toContain('Synced');
    expect(unhealthy.rows.map((row) => row[0])).toEqual(
      unhealthy.rows.map((_, i) => String(i + 1)),
    );

    const syncs = tableOf(html, 'syncs');
    expect(syncs.columns).toEqual(['S. No.', 'Gateway', 'Finished', 'Report']);
    expect(syncs.rows[0]).toEqual([
      '1',
      'Synced',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      '2 added, 0 updated, 0 removed, 0 unchanged',
    ]);
    expect(html).toContain(`href="/admin/gateways/${synced.id}#last-sync"`);

    const urls = tableOf(html, 'server-urls');
    expect(urls.columns).toEqual(['S. No.', 'Server', 'Tools', 'MCP URL']);
    expect(rowWith(urls, 1, 'Dash one').slice(2)).toEqual(['1', servers[0]!.mcpUrl]);
    expect(rowWith(urls, 1, 'Dash two').slice(2)).toEqual(['2', servers[1]!.mcpUrl]);
    expect(urls.rows).toHaveLength(await total('/api/v1/servers'));
    for (const server of servers) {
      expect(server.mcpUrl).toBe(`${t.config.publicUrl}/servers/${server.id}/mcp`);
    }
  });

  it('shows a hostile upstream’s sync conflicts and warnings on the gateway page as text', async () => {
    const hostile = await startUpstream({
      name: 'hostile-upstream',
      tools: [
        echoTool('fine', 'hostile-upstream'),
        { definition: { name: HOSTILE, inputSchema: { type: 'object' } } },
        echoTool('wordy', 'hostile-upstream', {
          description: `${HOSTILE}${'d'.repeat(DESCRIPTION_LIMIT)}`,
        }),
      ],
    });
    const registered = await make
      .gateway({ name: 'Hostile upstream', url: hostile.url })
      .finally(() => hostile.close());
    const report = (await t.api().get(`/api/v1/gateways/${registered.id}`).expect(200)).body
      .lastSyncReport;
    expect(report.conflicts).toEqual([{ name: HOSTILE, reason: expect.any(String) }]);
    expect(report.warnings).toEqual([{ name: 'wordy', reason: expect.any(String) }]);

    const html = (await agent.get(`/admin/gateways/${registered.id}`).expect(200)).text;
    expect(html).not.toContain('<img');
    expect(html).toContain('<code>&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;</code>');
    expect(html).toContain('2 added, 0 updated, 0 removed, 0 unchanged, 1 conflict, 1 warning');
    expect(tableOf(html, 'sync-conflicts')).toEqual({
      columns: ['S. No.', 'Upstream name', 'Reason'],
      rows: [['1', HOSTILE, report.conflicts[0].reason]],
    });
    expect(tableOf(html, 'sync-warnings')).toEqual({
      columns: ['S. No.', 'Upstream name', 'What changed'],
      rows: [['1', 'wordy', report.warnings[0].reason]],
    });
  });

  describe('with a real upstream', () => {
    let upstream: UpstreamFixture;
    let gatewayPath: string;

    beforeAll(async () => {
      upstream = await startUpstream({
        name: 'e2e-upstream',
        tools: [
          {
            definition: {
              name: 'greet',
              description: 'Greets someone',
              inputSchema: {
                type: 'object',
                properties: { who: { type: 'string' } },
                required: ['who'],
              },
            },
            handler: (args) => ({
              content: [{ type: 'text', text: `Hello, ${String(args.who)} <b>!</b>` }],
              structuredContent: { greeted: args.who },
            }),
          },
          {
            definition: { name: 'fail', inputSchema: { type: 'object' } },
            handler: () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }),
          },
        ],
      });
    });

    afterAll(async () => {
      await upstream.close();
    });

    async function toolPath(originalName: string): Promise<string> {
      const id = gatewayPath.split('/').pop()!;
      const list = await t.api().get('/api/v1/tools').query({ gatewayId: id }).expect(200);
      const tool = list.body.items.find(
        (item: { originalName: string }) => item.originalName === originalName,
      );
      return `/admin/tools/${tool.id}`;
    }

    it('registers through the form, which syncs the upstream’s tools', async () => {
      const created = await agent
        .post('/admin/gateways')
        .type('form')
        .send({ _csrf: csrf, name: 'Live', url: upstream.url, authType: 'none' })
        .expect(303);
      gatewayPath = created.headers.location as string;
      const detail = await agent.get(gatewayPath).expect(200);
      expect(detail.text).toContain('Gateway &#x27;Live&#x27; registered with 2 tools.');
      expect(detail.text).toContain('<code>+ greet</code>');
      expect(detail.text).toContain('<code>live-fail</code>');
    });

    it('syncs now and shows the diff', async () => {
      upstream.setTool(echoTool('added_later', 'e2e-upstream'));
      await agent
        .post(`${gatewayPath}/sync`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303)
        .expect('Location', `${gatewayPath}#last-sync`);
      const detail = await agent.get(gatewayPath).expect(200);
      expect(detail.text).toContain(
        'Synced &#x27;Live&#x27;: 1 added, 0 updated, 0 removed, 2 unchanged.',
      );
      expect(detail.text).toContain('<code>+ added_later</code>');
      expect(detail.text).not.toContain('<code>+ greet</code>');
    });

    it('invokes a tool after checking its arguments, showing the result as text', async () => {
      const path = await toolPath('greet');
      const page = await agent.get(path).expect(200);
      expect(page.text).toContain('&quot;who&quot;: &quot;&quot;');

      const mismatch = await agent
        .post(`${path}/invoke`)
        .type('form')
        .send({ _csrf: csrf, arguments: '{"who": 42}' })
        .expect(422);
      expect(mismatch.text).toMatch(/id="arguments-error">[^<]*arguments\/who must be string/);
      const broken = await agent
        .post(`${path}/invoke`)
        .type('form')
        .send({ _csrf: csrf, arguments: '{"who": ' })
        .expect(422);
      expect(broken.text).toMatch(/id="arguments-error">The arguments are not valid JSON/);
      expect(upstream.calls).toEqual([]);

      const ok = await agent
        .post(`${path}/invoke`)
        .type('form')
        .send({ _csrf: csrf, arguments: '{"who": "<script>x</script>"}' })
        .expect(200);
      expect(ok.text).toContain('Hello, &lt;script&gt;x&lt;/script&gt; &lt;b&gt;!&lt;/b&gt;');
      expect(ok.text).toContain('&quot;greeted&quot;: &quot;&lt;script&gt;x&lt;/script&gt;&quot;');
      expect(ok.text).not.toContain('<script>x');
      expect(upstream.calls.map((call) => call.args)).toEqual([{ who: '<script>x</script>' }]);
    });

    it('shows a tool’s own failure as a result, and refusals as form errors', async () => {
      const path = await toolPath('fail');
      const failed = await agent
        .post(`${path}/invoke`)
        .type('form')
        .send({ _csrf: csrf, arguments: '{}' })
        .expect(200);
      expect(failed.text).toContain('isError: the tool reported a failure');
      expect(failed.text).toContain('it broke');

      await agent.post(path).type('form').send({ _csrf: csrf }).expect(303);
      const disabled = await agent
        .post(`${path}/invoke`)
        .type('form')
        .send({ _csrf: csrf, arguments: '{}' })
        .expect(409);
      expect(disabled.text).toMatch(/id="invoke-error">Tool &#x27;live-fail&#x27; is disabled\.</);
    });

    it('reports a failed sync and an unreachable upstream without a stack trace', async () => {
      const path = await toolPath('greet');
      await upstream.close();
      await agent
        .post(`${gatewayPath}/sync`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303)
        .expect('Location', gatewayPath);
      const detail = await agent.get(gatewayPath).expect(200);
      expect(detail.text).toMatch(/role="alert">Sync of &#x27;Live&#x27; failed: /);
      expect(detail.text).toContain('Unreachable');
      const down = await agent
        .post(`${path}/invoke`)
        .type('form')
        .send({ _csrf: csrf, arguments: '{"who": "x"}' });
      // 502 when the call failed; 503 once the failed syncs above have opened the breaker.
      expect([502, 503]).toContain(down.status);
      expect(down.text).toMatch(
        /id="invoke-error">Calling &#x27;greet&#x27; on gateway &#x27;Live&#x27; failed/,
      );
      expect(down.text).not.toMatch(/at .*\.ts:\d+/);
    });
  });

  describe('a catalogue too large to list in the picker', () => {
    let first: Tool;
    let second: Tool;

    beforeAll(async () => {
      const bulk = await make.gateway({ name: 'Bulk' });
      const names = Array.from({ length: PICKER_LIST_ALL_UP_TO }, (_, i) => `bulk_${i}`);
      [first, second] = (await make.tools(bulk, names)) as [Tool, Tool];
    });

    it('searches on the server and keeps what is picked', async () => {
      const form = await agent.get('/admin/servers/new').expect(200);
      expect(form.text).toContain('Search all');
      expect(form.text).not.toContain('name="toolIds"');

      const searched = await agent
        .post('/admin/servers')
        .type('form')
        .send({
          _csrf: csrf,
          name: 'Big',
          intent: 'search',
          pickerQ: 'bulk_1999',
          toolIds: first.id,
        })
        .expect(200);
      expect(searched.text).toContain(`value="${first.id}" id="tool-${first.id}" checked`);
      expect(searched.text).toContain('1 tool match “bulk_1999”.</p>');
      expect(searched.text).toContain('value="Big"');
      const match = /value="([0-9a-f-]{36})" id="tool-[0-9a-f-]{36}" >/.exec(searched.text);
      expect(match).not.toBeNull();

      const broad = await agent
        .post('/admin/servers')
        .type('form')
        .send({ _csrf: csrf, name: 'Big', intent: 'search', pickerQ: 'bulk_' })
        .expect(200);
      expect(broad.text.match(/name="toolIds"/g)).toHaveLength(PICKER_SEARCH_LIMIT);
      expect(broad.text).toContain('refine the search');

      const created = await agent
        .post('/admin/servers')
        .type('form')
        .send({ _csrf: csrf, name: 'Big', toolIds: [first.id, second.id, match![1]] })
        .expect(303);
      const id = (created.headers.location as string).split('/').pop()!;
      const api = await t.api().get(`/api/v1/servers/${id}`).expect(200);
      expect(api.body.toolIds).toHaveLength(3);
      const edit = await agent.get(`/admin/servers/${id}/edit`).expect(200);
      expect(edit.text.match(/name="toolIds"[^>]*checked/g)).toHaveLength(3);
    });

    it('skips malformed tool ids in searches and refused forms instead of failing', async () => {
      const malformed = ['not-a-uuid', "1' OR '1'='1", first.id];
      const searched = await agent
        .post('/admin/servers')
        .type('form')
        .send({ _csrf: csrf, name: 'Odd', intent: 'search', pickerQ: 'bulk_7', toolIds: malformed })
        .expect(200);
      expect(searched.text).toContain(`value="${first.id}" id="tool-${first.id}" checked`);
      expect(searched.text).not.toContain('not-a-uuid');

      const refused = await agent
        .post('/admin/servers')
        .type('form')
        .send({ _csrf: csrf, name: '', toolIds: malformed })
        .expect(422);
      expect(refused.text).toMatch(/id="toolIds-error">[^<]*must be a UUID/);
      expect(refused.text).toContain(`value="${first.id}" id="tool-${first.id}" checked`);

      const server = await make.server({ name: 'Odd edit', toolIds: [second.id] });
      const edited = await agent
        .post(`/admin/servers/${server.id}`)
        .type('form')
        .send({ _csrf: csrf, name: 'Odd edit', intent: 'search', toolIds: malformed })
        .expect(200);
      expect(edited.text).toContain(`value="${first.id}" id="tool-${first.id}" checked`);
    });

    it('saves on Enter in a text field, and searches on Enter in the search box', async () => {
      const form = (await agent.get('/admin/servers/new').expect(200)).text;
      expect(firstSubmitOf(form)).toEqual({ intent: 'enter' });
      const created = await agent
        .post('/admin/servers')
        .type('form')
        .send(enterIn(form, { name: 'Entered', toolIds: first.id }))
        .expect(303);
      const id = (created.headers.location as string).split('/').pop()!;
      expect((await t.api().get(`/api/v1/servers/${id}`).expect(200)).body).toMatchObject({
        name: 'Entered',
        toolIds: [first.id],
      });

      const edit = (await agent.get(`/admin/servers/${id}/edit`).expect(200)).text;
      expect(firstSubmitOf(edit)).toEqual({ intent: 'enter' });
      await agent
        .post(`/admin/servers/${id}`)
        .type('form')
        .send(enterIn(edit, { name: 'Entered again' }))
        .expect(303)
        .expect('Location', `/admin/servers/${id}`);
      expect((await t.api().get(`/api/v1/servers/${id}`).expect(200)).body).toMatchObject({
        name: 'Entered again',
        toolIds: [first.id],
      });

      const search = await agent
        .post(`/admin/servers/${id}`)
        .type('form')
        .send(enterIn(edit, { name: 'Not saved', pickerQ: 'bulk_1999' }))
        .expect(200);
      expect(search.text).toMatch(/1 tool match “bulk_1999”/);
      expect(search.text).toContain('name="pickerShownQ" value="bulk_1999"');
      expect(search.text).toContain('value="Not saved"');
      expect((await t.api().get(`/api/v1/servers/${id}`)).body.name).toBe('Entered again');

      const save = fieldsOf(search.text);
      await agent
        .post(`/admin/servers/${id}`)
        .type('form')
        .send({ ...save, name: 'Clicked Save', pickerQ: 'bulk_1' })
        .expect(303);
      expect((await t.api().get(`/api/v1/servers/${id}`)).body.name).toBe('Clicked Save');
    });
  });

  it('shows a tool’s UI at its per-tool URI on the tool page, without CSP or permissions', async () => {
    const apps = await make.gateway({ name: 'Admin apps' });
    const [withUi] = await make.tools(apps, [
      toolDefinition('show_chart', {
        meta: {
          ui: {
            resourceUri: 'ui://charts/chart.html',
            csp: { connectDomains: ['https://charts.example'] },
            permissions: { 'chart-sensor': {} },
          },
        },
      }),
    ]);
    const page = await agent.get(`/admin/tools/${withUi!.id}`).expect(200);
    expect(page.text).toContain(`ui://prefab/tool/${withUi!.toolHash}/renderer.html`);
    expect(page.text).not.toContain('ui://charts/chart.html');
    expect(page.text).not.toContain('https://charts.example');
    expect(page.text).not.toContain('chart-sensor');
  });
});

// A session names a user, so a replica must share the database; in-memory PGlite cannot be shared.
describeOnPostgres('admin sessions across replicas', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('accepts the session on another replica with the same JWT_SECRET and database', async () => {
    const replica = await startReplica(t);
    try {
      const browser = request.agent(t.baseUrl);
      const form = await browser.get('/admin/login');
      const login = await browser
        .post('/admin/login')
        .type('form')
        .send({ _csrf: csrfOf(form.text), username: 'admin', password: ADMIN_PASSWORD })
        .expect(303);
      const cookie = [login.headers['set-cookie']]
        .flat()
        .find((line) => line?.startsWith('portico_session='))!
        .split(';')[0]!;
      const page = await request(replica.baseUrl)
        .get('/admin/gateways')
        .set('Cookie', cookie)
        .expect(200);
      await request(replica.baseUrl)
        .post('/admin/gateways')
        .set('Cookie', cookie)
        .type('form')
        .send({
          _csrf: csrfOf(page.text),
          name: 'From replica two',
          url: 'http://127.0.0.1:9/two',
          authType: 'none',
        })
        .expect(303);
      expect((await replica.api().get('/api/v1/gateways').expect(200)).body.items[0].name).toBe(
        'From replica two',
      );
    } finally {
      await replica.close();
    }
  });
});
