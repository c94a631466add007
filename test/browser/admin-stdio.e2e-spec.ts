import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { STDIO_SERVERS } from '../fixtures/stdio-servers';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';
import { logIn } from './support/log-in';

describeWithBrowser('registering a stdio server from the admin pages in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  const problems: string[] = [];

  /**
   * The registration's flash: the first sync's tools, or, when the sync outlasts the few seconds
   * registration waits for it (a process to start, on a loaded machine), that it still runs, and
   * then the page once it is done.
   */
  async function expectRegistered(page: Page, name: string, tools: number): Promise<void> {
    const flash = await page.getByRole('status').textContent();
    if (flash?.includes(`Gateway '${name}' registered with ${tools} tools.`)) return;
    expect(flash).toContain(`Gateway '${name}' registered; its first sync is still running.`);
    await waitFor(
      async () => {
        await page.reload();
        return (await page.locator('#tools-heading').textContent()) === `Tools (${tools})`;
      },
      `the ${tools} tools of ${name}'s first sync`,
      20_000,
      500,
    );
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { STDIO_COMMANDS: 'node' } });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the fields of the chosen transport, and registers server-filesystem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-browser-fs-'));
    writeFileSync(join(dir, 'readme.txt'), 'hi');
    const context = await browser.newContext({ baseURL: t.baseUrl });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(`console: ${message.text()}`);
    });
    await logIn(page);
    await page.goto('/admin/gateways/new');
    expect(await page.getByLabel('Upstream MCP URL').isVisible()).toBe(true);
    expect(await page.getByLabel('Command', { exact: true }).isVisible()).toBe(false);

    await page.getByLabel('Transport').selectOption('stdio');
    expect(await page.getByLabel('Upstream MCP URL').isVisible()).toBe(false);
    expect(await page.getByLabel('Authentication', { exact: true }).isVisible()).toBe(false);
    await page.getByLabel('Name', { exact: true }).fill('Files');
    await page.getByLabel('Command', { exact: true }).fill('node');
    await page.getByLabel(/^Arguments/).fill(`${STDIO_SERVERS.filesystem}\n${dir}`);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/admin\/gateways\/[0-9a-f-]{36}$/);
    await expectRegistered(page, 'Files', 14);
    expect(await page.locator('#processes-heading').textContent()).toBe(
      'Processes on this replica',
    );

    await page.getByRole('link', { name: 'Edit Files' }).click();
    // The click returns before the edit page has loaded and run its script.
    await page.waitForURL(/\/edit$/, { waitUntil: 'load' });
    expect(await page.getByLabel('Command', { exact: true }).inputValue()).toBe('node');
    expect(await page.getByLabel('Upstream MCP URL').isVisible()).toBe(false);
    await context.close();
    expect(problems).toEqual([]);
  });

  it('shows every field without JavaScript, and registers all the same', async () => {
    const context = await browser.newContext({ baseURL: t.baseUrl, javaScriptEnabled: false });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await logIn(page);
    await page.goto('/admin/gateways/new');
    expect(await page.getByLabel('Upstream MCP URL').isVisible()).toBe(true);
    expect(await page.getByLabel('Command', { exact: true }).isVisible()).toBe(true);
    await page.getByLabel('Transport').selectOption('stdio');
    await page.getByLabel('Name', { exact: true }).fill('Memory');
    await page.getByLabel('Command', { exact: true }).fill('node');
    await page.getByLabel(/^Arguments/).fill(STDIO_SERVERS.memory);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/admin\/gateways\/[0-9a-f-]{36}$/);
    await expectRegistered(page, 'Memory', 9);
    await context.close();
  });
});
