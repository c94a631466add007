import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { startMemberUpstream, type UpstreamMembers } from '../fixtures/member-upstream';
import { echoTool, type UpstreamFixture } from '../fixtures/upstream-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';
import { logIn } from './support/log-in';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const HOSTILE = '<img src=x onerror=alert(1)>';

function members(upstream: string): UpstreamMembers {
  return {
    tools: [echoTool('get_time', upstream)],
    prompts: [
      {
        name: 'greet',
        description: `Greets, by ${upstream} ${HOSTILE}`,
        arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
      },
    ],
    resources: [{ uri: 'file:///readme.md', name: `${upstream} readme` }],
  };
}

describeWithBrowser('picking prompts and resources for a server in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const upstreams: UpstreamFixture[] = [];
  const dialogs: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    for (const name of ['alpha', 'beta']) {
      const upstream = await startMemberUpstream(name, members(name));
      upstreams.push(upstream);
      await t.api().post('/api/v1/gateways').send({ name, url: upstream.url }).expect(201);
    }
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: t.baseUrl });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400 && response.request().resourceType() !== 'document')
        problems.push(`${response.status()} for ${response.url()}`);
    });
    await logIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  });

  const picker = (field: string) => page.locator(`[data-picker="${field}"]`);
  const box = (name: string) => page.getByRole('checkbox', { name: new RegExp(`^${name}\\b`) });

  it('refuses a clash under original naming beside the naming select, keeping the picks', async () => {
    await page.goto('/admin/servers/new');
    await page.getByLabel('Name', { exact: true }).fill('Original names');
    await page.getByLabel('Naming', { exact: true }).selectOption('original');
    await page.getByLabel('Filter prompts').fill('greet');
    // The filter applies a moment after typing and moves the rows; a click before that can land
    // beside the box it aimed at.
    await picker('promptIds')
      .getByText(/prompts shown/)
      .waitFor();
    await box('alpha-greet').check();
    await box('beta-greet').check();
    await page.getByLabel('Filter resources').fill('beta');
    await box('alpha\\+file').waitFor({ state: 'hidden' });
    await box('beta\\+file').check();
    expect(await picker('promptIds').locator('[data-picker-count]').textContent()).toBe('2');
    expect(await picker('resourceIds').locator('[data-picker-count]').textContent()).toBe('1');
    expect(await picker('toolIds').locator('[data-picker-count]').textContent()).toBe('0');
    await page.screenshot({ path: join(ARTIFACTS, 'server-form-members.png'), fullPage: true });
    await page.getByRole('button', { name: 'Create server' }).click();
    // The form again, loaded with its script: a click before the script shows the picker's
    // controls lands where a row was (seen under load as a tick that did not take).
    await page.waitForURL(/\/admin\/servers$/);

    const naming = page.getByLabel('Naming', { exact: true });
    expect(await naming.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#naming-error').textContent()).toContain(
      "prompt 'greet' (gateways alpha, beta)",
    );
    expect(await naming.inputValue()).toBe('original');
    expect(await box('alpha-greet').isChecked()).toBe(true);
    expect(await box('beta\\+file').isChecked()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'server-form-clash.png'), fullPage: true });

    await box('beta-greet').uncheck();
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.waitForURL(/\/admin\/servers\/[0-9a-f-]{36}$/);
    expect(await page.getByRole('status').textContent()).toContain(
      "Server 'Original names' created",
    );
    expect(await page.locator('table.prompts td:nth-child(2)').allTextContents()).toEqual([
      'alpha-greet',
    ]);
    expect(await page.locator('table.resources td:nth-child(2)').allTextContents()).toEqual([
      'beta+file:///readme.md',
    ]);
    expect(await page.getByText('Original: clients see the upstreams’ own names').count()).toBe(1);
  });

  it('shows a prompt’s arguments and switches it off', async () => {
    await page.goto('/admin/prompts');
    await page.getByRole('link', { name: 'beta-greet' }).click();
    await page.waitForURL(/\/admin\/prompts\/[^/]+$/);
    expect(await page.locator('.description-full').textContent()).toBe(
      `Greets, by beta ${HOSTILE}`,
    );
    expect(await page.locator('table.prompt-arguments td').allTextContents()).toEqual([
      '1',
      'who',
      'Yes',
      'Whom to greet',
    ]);
    await page.getByLabel('Enabled: served to MCP clients').uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await page.getByRole('status').textContent()).toContain("Prompt 'beta-greet' saved.");
    const prompts = (await t.api().get('/api/v1/prompts').query({ q: 'beta-greet' })).body;
    expect(prompts.items[0].enabled).toBe(false);
  });

  it('raised no dialog, script error or failed asset on the way', () => {
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
