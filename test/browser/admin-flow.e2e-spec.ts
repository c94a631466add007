import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  echoTool,
  type FixtureTool,
  startUpstream,
  type UpstreamFixture,
} from '../fixtures/upstream-server';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { logIn, SIGN_IN_MS } from './support/log-in';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const HOSTILE = '<img src=x onerror=alert(1)>';
const ECHO_TOOLS = 30;
const shout: FixtureTool = {
  definition: {
    name: 'shout',
    description: 'Upper-cases its text',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
    },
  },
  handler: (args) => ({ content: [{ type: 'text', text: String(args.text).toUpperCase() }] }),
};

/** Every page state the flow passes through is saved for CI under test/artifacts/. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

describeWithBrowser('admin pages in Chromium, against a real upstream MCP server', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];
  const problems: string[] = [];
  let gatewayPath = '';

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startUpstream({
      name: 'browser-upstream',
      tools: [
        ...Array.from({ length: ECHO_TOOLS }, (_, i) =>
          echoTool(`tool_${String(i + 1).padStart(2, '0')}`, 'browser-upstream'),
        ),
        echoTool('hostile', 'browser-upstream', { description: HOSTILE }),
        shout,
      ],
    });
    t = await startTestApp();
    browser = await launchChromium();
    context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1280, height: 900 },
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Pages answer refused forms with 4xx on purpose; any failed script, style or image is a bug.
    page.on('response', (response) => {
      if (response.status() >= 400 && response.request().resourceType() !== 'document') {
        problems.push(`${response.status()} for ${response.url()}`);
      }
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(`console: ${message.text()}`);
      }
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await upstream?.close();
  });

  it('sends a visitor to the login page and logs in by keyboard', async () => {
    await page.goto('/admin/tools');
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await screenshot(page, 'login');
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/admin/tools', { timeout: SIGN_IN_MS });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Tools');
  });

  it('registers a gateway through the form and shows the tools its sync brought in', async () => {
    await page.goto('/admin/gateways');
    await page.getByRole('link', { name: 'Register a gateway' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser Upstream');
    await page.getByLabel('Upstream MCP URL').fill(upstream.url);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/admin\/gateways\/[0-9a-f-]{36}$/);
    gatewayPath = new URL(page.url()).pathname;
    expect(await page.getByRole('status').textContent()).toContain(
      "Gateway 'Browser Upstream' registered with 32 tools.",
    );
    expect(await page.locator('#tools-heading').textContent()).toBe('Tools (32)');
    expect(await page.locator('.diff-added li').count()).toBe(32);
    expect(await page.locator('table.tools code').first().textContent()).toBe(
      'browser-upstream-hostile',
    );
    await screenshot(page, 'gateway-detail');
    await page.goto('/admin/gateways');
    expect(await page.locator('table.gateways tbody td').nth(6).textContent()).toBe('32');
    await screenshot(page, 'gateways');
    await page.getByRole('link', { name: 'Edit Browser Upstream' }).click();
    await page.waitForURL(`**${gatewayPath}/edit`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(
      'Browser Upstream',
    );
    expect(await page.getByLabel('Upstream MCP URL').inputValue()).toBe(upstream.url);
    await screenshot(page, 'gateway-edit');
  });

  it('shows a refused registration beside the field, as the API words it', async () => {
    await page.goto('/admin/gateways/new');
    await page.getByLabel('Name', { exact: true }).fill('Browser Upstream');
    await page.getByLabel('Upstream MCP URL').fill('http://127.0.0.1:9/elsewhere');
    await page.getByRole('button', { name: 'Register' }).click();
    const name = page.getByLabel('Name', { exact: true });
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#name-error').textContent()).toBe(
      "A gateway named 'Browser Upstream' exists already.",
    );
    expect(await name.inputValue()).toBe('Browser Upstream');
    await screenshot(page, 'gateway-form-error');
  });

  it('shows the token exchange fields, with the client fields OAuth shares, for token exchange only', async () => {
    await page.goto('/admin/gateways/new');
    await page.getByLabel('Authentication', { exact: true }).selectOption('token-exchange');
    expect(await page.locator('#exchangeTokenUrl').isVisible()).toBe(true);
    expect(await page.locator('#oauthClientId').isVisible()).toBe(true);
    expect(await page.locator('#oauthMode').isVisible()).toBe(false);
    expect(await page.locator('#token').isVisible()).toBe(false);
    await page.getByLabel('Authentication', { exact: true }).selectOption('oauth');
    expect(await page.locator('#exchangeTokenUrl').isVisible()).toBe(false);
    expect(await page.locator('#oauthClientId').isVisible()).toBe(true);
  });

  it('numbers tools across pages: the first row of page 2 is 26', async () => {
    await page.goto('/admin/tools');
    await page.getByLabel('Gateway').selectOption({ label: 'Browser Upstream' });
    await page.getByRole('button', { name: 'Filter' }).click();
    const serials = () => page.locator('td.serial').allTextContents();
    expect(await serials()).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
    await screenshot(page, 'tools-page-1');
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/page=2/);
    expect(await serials()).toEqual(['26', '27', '28', '29', '30', '31', '32']);
    await screenshot(page, 'tools-page-2');
  });

  it('shows a hostile description as text and never runs it', async () => {
    await page.goto('/admin/tools?q=hostile');
    const cell = page.locator('td.description');
    expect(await cell.textContent()).toBe(HOSTILE);
    expect(await cell.isVisible()).toBe(true);
    expect(await page.locator('main img').count()).toBe(0);
    await page.getByRole('link', { name: 'browser-upstream-hostile' }).click();
    expect(await page.locator('.description-full').textContent()).toBe(HOSTILE);
    expect(dialogs).toEqual([]);
  });

  it('syncs on demand and shows what changed upstream as a diff', async () => {
    upstream.setTool(echoTool('tool_new', 'browser-upstream'));
    upstream.removeTool('tool_30');
    await page.goto(gatewayPath);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.waitForURL(`**${gatewayPath}#last-sync`);
    expect(await page.getByRole('status').textContent()).toBe(
      "Synced 'Browser Upstream': 1 added, 0 updated, 1 removed, 31 unchanged.",
    );
    expect(await page.locator('.diff-added li').allTextContents()).toEqual(['+ tool_new']);
    expect(await page.locator('.diff-removed li').allTextContents()).toEqual(['− tool_30']);
    await screenshot(page, 'gateway-sync-diff');
  });

  it('creates a server with two tools picked while filtering the picker', async () => {
    await page.goto('/admin/servers/new');
    await page.getByLabel('Name', { exact: true }).fill('Browser Server');
    const filter = page.getByLabel('Filter the list');
    const box = (name: string) => page.getByRole('checkbox', { name: new RegExp(`${name}\\b`) });
    await filter.fill('tool_03');
    await box('browser-upstream-tool_04').waitFor({ state: 'hidden' });
    await box('browser-upstream-tool_03').check();
    await filter.fill('tool_07');
    await box('browser-upstream-tool_03').waitFor({ state: 'hidden' });
    await box('browser-upstream-tool_07').check();
    await filter.fill('');
    await box('browser-upstream-tool_04').waitFor({ state: 'visible' });
    expect(await box('browser-upstream-tool_03').isChecked()).toBe(true);
    expect(await page.locator('[data-picker-count]').textContent()).toBe('2');
    expect(await page.locator('[data-picker-group-count]').textContent()).toBe('2');
    await screenshot(page, 'server-form');
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.waitForURL(/\/admin\/servers\/[0-9a-f-]{36}$/);
    expect(await page.locator('td.serial').allTextContents()).toEqual(['1', '2']);
    expect(await page.locator('table.tools code').allTextContents()).toEqual(
      expect.arrayContaining(['browser-upstream-tool_03', 'browser-upstream-tool_07']),
    );
    await screenshot(page, 'server-detail');
    await page.goto('/admin/servers');
    await screenshot(page, 'servers');
    await page.getByRole('link', { name: 'Edit Browser Server' }).click();
    await page.waitForURL(/\/admin\/servers\/[0-9a-f-]{36}\/edit$/);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Browser Server');
    expect(await box('browser-upstream-tool_03').isChecked()).toBe(true);
    expect(await box('browser-upstream-tool_07').isChecked()).toBe(true);
    expect(await page.locator('[data-picker-count]').textContent()).toBe('2');
    await screenshot(page, 'server-edit');
  });

  it('invokes a tool from its page, checking the arguments against its schema first', async () => {
    await page.goto('/admin/tools?q=shout');
    await page.getByRole('link', { name: 'browser-upstream-shout' }).click();
    const args = page.getByLabel('Arguments (JSON object)');
    expect(JSON.parse(await args.inputValue())).toEqual({ text: '' });
    await args.fill('{"text": 5}');
    await page.getByRole('button', { name: 'Invoke' }).click();
    expect(await page.locator('#arguments-error').textContent()).toContain(
      'arguments/text must be string',
    );
    expect(upstream.calls).toEqual([]);
    await page.getByLabel('Arguments (JSON object)').fill('{"text": "hello portico"}');
    await page.getByRole('button', { name: 'Invoke' }).click();
    expect(await page.locator('.result-text').textContent()).toBe('HELLO PORTICO');
    expect(await page.locator('#result-heading .badge').textContent()).toBe('OK');
    expect(upstream.calls.map((call) => [call.name, call.args])).toEqual([
      ['shout', { text: 'hello portico' }],
    ]);
    await screenshot(page, 'tool-invoke');
  });

  it('deactivates and activates the gateway', async () => {
    await page.goto(gatewayPath);
    await page.getByRole('button', { name: 'Deactivate' }).click();
    expect(await page.getByRole('status').textContent()).toContain('deactivated');
    expect(await page.locator('.facts .badge-off').textContent()).toBe('Inactive');
    expect(await page.getByRole('button', { name: 'Sync now' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Activate' }).click();
    expect(await page.getByRole('status').textContent()).toContain('activated');
    expect(await page.getByRole('button', { name: 'Deactivate' }).isVisible()).toBe(true);
  });

  it('shows the dashboard with counts, the last sync and connection details', async () => {
    await page.goto('/admin');
    expect(await page.locator('#count-gateways').textContent()).toBe('1');
    expect(await page.locator('#count-tools').textContent()).toBe('32');
    expect(await page.locator('#count-servers').textContent()).toBe('1');
    expect(await page.getByRole('link', { name: /0 added, 0 updated, 0 removed/ }).count()).toBe(1);
    expect(await page.getByText(`${t.config.publicUrl}/mcp`, { exact: true }).isVisible()).toBe(
      true,
    );
    await screenshot(page, 'dashboard');
  });

  it('is readable on a phone', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/admin', '/admin/tools', '/admin/gateways', '/admin/servers/new']) {
      await phone.goto(path);
      const overflow = await phone.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
    }
    await phone.goto('/admin/tools');
    await screenshot(phone, 'tools-phone');
    await phone.close();
  });

  it('works without JavaScript, picker included', async () => {
    const plain = await browser.newContext({ baseURL: t.baseUrl, javaScriptEnabled: false });
    plain.setDefaultTimeout(10_000);
    try {
      const noJs = await plain.newPage();
      await logIn(noJs);
      await noJs.goto('/admin/servers/new');
      expect(await noJs.getByLabel('Filter the list').isVisible()).toBe(false);
      await noJs.getByLabel('Name', { exact: true }).fill('No Script');
      await noJs.getByRole('checkbox', { name: /browser-upstream-tool_01\b/ }).check();
      await noJs.getByRole('checkbox', { name: /browser-upstream-shout\b/ }).check();
      await noJs.getByRole('button', { name: 'Create server' }).click();
      await noJs.waitForURL(/\/admin\/servers\/[0-9a-f-]{36}$/);
      expect(await noJs.locator('table.tools td:nth-child(2) code').allTextContents()).toEqual([
        'browser-upstream-shout',
        'browser-upstream-tool_01',
      ]);
      await screenshot(noJs, 'server-detail-no-js');
    } finally {
      await plain.close();
    }
  });

  it('deletes the servers and the gateway after confirmation', async () => {
    for (const name of ['Browser Server', 'No Script']) {
      await page.goto('/admin/servers');
      await page.getByRole('link', { name: `Delete ${name}` }).click();
      await page.getByRole('button', { name: 'Delete server' }).click();
      expect(await page.getByRole('status').textContent()).toContain(`Server '${name}' deleted.`);
    }
    await page.goto('/admin/gateways');
    await page.getByRole('link', { name: 'Delete Browser Upstream' }).click();
    await screenshot(page, 'confirm-delete');
    await page.getByRole('button', { name: 'Delete gateway' }).click();
    expect(await page.getByRole('status').textContent()).toContain(
      "Gateway 'Browser Upstream' deleted.",
    );
    expect(await page.locator('p.empty').textContent()).toContain('No gateways yet');
    await page.goto('/admin/tools');
    expect(await page.locator('p.empty').textContent()).toContain('No tools yet');
  });

  it('raised no dialog, script error or CSP violation on the way', () => {
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('logs out', async () => {
    await page.goto('/admin');
    await page.getByRole('button', { name: 'Log out' }).click();
    expect(await page.getByRole('status').textContent()).toBe('You are logged out.');
    await page.goto('/admin');
    expect(new URL(page.url()).pathname).toBe('/admin/login');
  });
});
