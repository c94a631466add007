import { type Browser, type Page } from 'playwright-core';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { SSO_CLIENT, startTestIdp, type TestIdp } from '../fixtures/test-idp';
import { MemoryOAuthProvider } from '../support/oauth-client';
import { freePort, startTestApp, type TestApp } from '../support/test-app';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';

describeWithBrowser('admin sign-in through an OpenID Connect provider, in Chromium', () => {
  let idp: TestIdp;
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    idp = await startTestIdp({ redirectUri: `http://127.0.0.1:${port}/admin/sso/callback` });
    t = await startTestApp({
      publicUrl: true,
      port,
      env: {
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: SSO_CLIENT.id,
        OIDC_CLIENT_SECRET: SSO_CLIENT.secret,
        OIDC_SCOPES: 'openid profile groups',
        OIDC_ROLE_MAP: 'portico-admins=admin,portico-operators=operator,staff=member',
        OIDC_TEAM_MAP: 'platform=Platform',
        OIDC_LABEL: 'Test IdP',
      },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser.close();
    await t.close();
    await idp.close();
  });

  /** Login page → the provider's login and consent pages → back to Portico. */
  async function signIn(page: Page, login: string): Promise<void> {
    await page.goto(`${t.baseUrl}/admin/login?next=${encodeURIComponent('/admin/servers')}`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.waitForURL(`${idp.issuer}/**`);
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${t.baseUrl}/**`);
  }

  it('signs an operator in, with the role and team their groups map to', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await signIn(page, 'olivia');
    expect(new URL(page.url()).pathname).toBe('/admin/servers');
    await expect(page.locator('.who').textContent()).resolves.toMatch(/olivia\s*\(operator\)/);
    await expect(page.getByRole('link', { name: 'Gateways' }).count()).resolves.toBe(1);
    await expect(page.getByRole('link', { name: 'Users' }).count()).resolves.toBe(0);
    await context.close();

    const users = (await t.api().get('/api/v1/users').expect(200)).body.items;
    const olivia = users.find((user: { username: string }) => user.username === 'olivia');
    const teams = (await t.api().get('/api/v1/teams').expect(200)).body.items;
    const platform = teams.find((team: { name: string }) => team.name === 'Platform');
    expect(olivia).toMatchObject({
      source: 'oidc',
      role: 'operator',
      displayName: 'Olivia Operator',
      teamIds: [platform.id],
    });
    expect(olivia.lastLoginAt).not.toBeNull();

    // Signing in again with nothing changed at the provider is a login, not an edit.
    const again = await browser.newContext();
    again.setDefaultTimeout(15_000);
    await signIn(await again.newPage(), 'olivia');
    await again.close();
    const after = (await t.api().get(`/api/v1/users/${olivia.id}`).expect(200)).body;
    expect(Date.parse(after.lastLoginAt)).toBeGreaterThan(Date.parse(olivia.lastLoginAt));
    expect(after.updatedAt).toBe(olivia.updatedAt);
  });

  it('turns away someone none of whose groups has a role', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await signIn(page, 'nobody');
    expect(new URL(page.url()).pathname).toBe('/admin/sso/callback');
    await expect(page.locator('[role="alert"]').first().textContent()).resolves.toMatch(
      /none of their groups has a role/,
    );
    await expect(page.locator('.who').count()).resolves.toBe(0);
    await context.close();
  });

  it('signs a person in through the provider for an MCP client, from a fresh Portico URL', async () => {
    const teams = (await t.api().get('/api/v1/teams').expect(200)).body.items;
    const platform = teams.find((team: { name: string }) => team.name === 'Platform');
    const server = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Platform tools', teamId: platform.id })
        .expect(201)
    ).body;
    const provider = new MemoryOAuthProvider();
    const url = new URL(server.mcpUrl);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(
      new Client({ name: 'desktop', version: '1' }).connect(transport),
    ).rejects.toBeInstanceOf(UnauthorizedError);

    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(provider.authorizationUrl!.href);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.locator('input[name="login"]').fill('max');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${t.baseUrl}/oauth/consent?**`);
    await expect(page.locator('main').textContent()).resolves.toContain('Platform tools');
    // The client listens on its redirect URI; here nothing does, so catch the request itself.
    const callback = page.waitForRequest((sent) => sent.url().startsWith(provider.redirectUrl));
    await page.getByRole('button', { name: 'Allow' }).click();
    const code = new URL((await callback).url()).searchParams.get('code');
    await context.close();

    await transport.finishAuth(code!);
    const client = new Client({ name: 'desktop', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });

  it('refuses a callback that did not start here', async () => {
    const response = await request(t.baseUrl)
      .get('/admin/sso/callback?code=stolen&state=guessed')
      .expect(401);
    expect(response.text).toContain('did not start here');
    expect([response.headers['set-cookie'] ?? []].flat().join('')).not.toMatch(
      /portico_session=[^;]/,
    );
  });
});
