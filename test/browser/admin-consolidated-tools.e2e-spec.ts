import { type Browser, type Page } from 'playwright-core';
import { factories } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';
import { logIn } from './support/log-in';

describeWithBrowser('consolidating two regional tools in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const make = factories(t.app);
    await make.tools(await make.gateway({ name: 'Weather EU' }), ['forecast']);
    await make.tools(await make.gateway({ name: 'Weather US' }), ['forecast']);
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: t.baseUrl });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // The form's 422 is logged as a failed load; a CSP violation is what must not happen.
      if (message.text().startsWith('Refused')) problems.push(`console: ${message.text()}`);
    });
    await logIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows an unknown tool beside the targets, then creates and deletes the tool', async () => {
    await page.getByRole('link', { name: 'Consolidated tools', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('forecast');
    const targets = page.getByLabel(/^Targets/);
    await targets.fill('eu weather-eu-forecast\nus weather-mars-forecast');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#members-error').waitFor();
    expect(await targets.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#members-error').textContent()).toContain(
      "No tool is named 'weather-mars-forecast'",
    );
    await targets.fill('eu weather-eu-forecast\nus weather-us-forecast');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/admin/consolidated-tools');
    const rows = await page.locator('table.consolidated-tools tbody tr').allTextContents();
    expect(rows.map((row) => row.replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringContaining('eu → weather-eu-forecast us → weather-us-forecast /mcp only'),
    ]);
    await page.getByRole('button', { name: 'Delete forecast' }).click();
    await page.waitForURL('**/admin/consolidated-tools');
    expect(await page.locator('p.empty').textContent()).toBe('No consolidated tools yet.');
    expect(problems).toEqual([]);
  });
});
