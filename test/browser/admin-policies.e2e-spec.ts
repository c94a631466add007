import { type Browser, type Page } from 'playwright-core';
import { factories } from '../support/factories';
import { createTeam, createUser } from '../support/identities';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';
import { logIn } from './support/log-in';

describeWithBrowser('writing a policy and dry-running it in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const make = factories(t.app);
    const gateway = await make.gateway({ name: 'Files' });
    await make.tools(gateway, ['read_file', 'delete_file']);
    await createUser(t, 'rita', 'member', [await createTeam(t, 'red')]);
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: t.baseUrl });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await logIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows a compile error beside the expression, saves the fix, and dry-runs it for a user', async () => {
    await page.getByRole('link', { name: 'Policies', exact: true }).click();
    await page.getByRole('link', { name: 'Create a policy', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('red-reads-only');
    const expression = page.getByLabel('Expression (CEL)');
    await expression.fill('"red" in principal.teams && tool.originalName.startsWith("delete"');
    await page.getByLabel('Effect').selectOption('deny');
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.locator('#expression-error').waitFor();
    expect(await expression.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#expression-error').textContent()).toContain(
      'the expression does not compile (line 1',
    );
    await expression.fill('"red" in principal.teams && tool.originalName.startsWith("delete")');
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.waitForURL('**/admin/policies');
    expect(await page.locator('table.policies tbody tr').count()).toBe(1);

    await page.getByRole('link', { name: 'Dry run', exact: true }).click();
    await page.getByLabel('User (username or id)').fill('rita');
    await page.getByRole('button', { name: 'Run' }).click();
    expect(await page.locator('.dry-run-summary').textContent()).toContain(
      '1 of 2 visible, 1 hidden',
    );
    const rows = await page.locator('table.dry-run tbody tr').allTextContents();
    expect(rows.map((row) => row.replace(/\s+/g, ' ').trim())).toEqual([
      '1 files-delete_file files deny red-reads-only',
      '2 files-read_file files allow none',
    ]);
    expect(problems).toEqual([]);
  });
});
