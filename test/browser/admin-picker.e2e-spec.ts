import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { PICKER_LIST_ALL_UP_TO } from '../../src/admin/member-picker';
import { factories } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';
import { logIn } from './support/log-in';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const GATEWAYS = ['North', 'South', 'East', 'West'];
const TOOLS_PER_GATEWAY = 300;

/** The server form's tool picker in Chromium, with catalogues too large to look through by eye. */
describeWithBrowser('the tool picker in Chromium, with a large catalogue', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let serverId = '';
  const problems: string[] = [];
  /** Tool ids by virtual name. */
  const ids = new Map<string, string>();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    const make = factories(t.app);
    for (const name of GATEWAYS) {
      const gateway = await make.gateway({ name });
      const names = Array.from(
        { length: TOOLS_PER_GATEWAY },
        (_, i) => `op_${String(i).padStart(3, '0')}`,
      );
      for (const tool of await make.tools(gateway, names)) {
        ids.set(`${gateway.slug}-${tool.originalName}`, tool.id);
      }
    }
    browser = await launchChromium();
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1280, height: 900 },
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(`console: ${message.text()}`);
      }
    });
    await logIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const box = (name: string) => page.getByRole('checkbox', { name: new RegExp(`^${name}\\b`) });

  async function serverOf(id: string): Promise<{ name: string; toolIds: string[] }> {
    return (await t.api().get(`/api/v1/servers/${id}`).expect(200)).body;
  }

  it(`lists ${GATEWAYS.length * TOOLS_PER_GATEWAY} tools whole, keeps ticks across filters, and saves them`, async () => {
    await page.goto('/admin/servers/new');
    expect(await page.locator('input[name="toolIds"]').count()).toBe(
      GATEWAYS.length * TOOLS_PER_GATEWAY,
    );
    expect(await page.getByLabel(/^Search all/).count()).toBe(0);
    await page.getByLabel('Name', { exact: true }).fill('Picked while filtering');
    const filter = page.getByLabel('Filter the list');
    const status = page.locator('[data-picker-status]');
    /** Types a filter and waits until the script has applied it. */
    async function filterBy(text: string, shown: number): Promise<void> {
      await filter.fill(text);
      await page
        .locator('[data-picker-status]', {
          hasText: new RegExp(`^${shown} of 1200 tools shown; picks are kept\\.$`),
        })
        .waitFor();
    }

    await filterBy('south-op_042', 1);
    await box('south-op_042').check();
    await filterBy('op_150', 4);
    expect(await box('south-op_042').isHidden()).toBe(true);
    await box('north-op_150').check();
    await box('west-op_150').check();
    await box('west-op_150').uncheck();
    await filterBy('west-op_299', 1);
    expect(await box('north-op_150').isHidden()).toBe(true);
    await box('west-op_299').check();

    await filter.fill('');
    await page.waitForFunction(() => document.querySelector('[data-picker-row][hidden]') === null);
    expect(await status.textContent()).toBe('');
    const picked = ['north-op_150', 'south-op_042', 'west-op_299'];
    for (const name of picked) expect(await box(name).isChecked()).toBe(true);
    expect(
      await page
        .locator('input[name="toolIds"]:checked')
        .evaluateAll((boxes) => boxes.map((input) => (input as HTMLInputElement).value)),
    ).toEqual(expect.arrayContaining(picked.map((name) => ids.get(name))));
    expect(await page.locator('input[name="toolIds"]:checked').count()).toBe(3);
    expect(await page.locator('[data-picker-count]').textContent()).toBe('3');
    await screenshot(page, 'server-form-1200-tools');

    await page.getByRole('button', { name: 'Create server' }).click();
    await page.waitForURL(/\/admin\/servers\/[0-9a-f-]{36}$/);
    serverId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.locator('table.tools td:nth-child(2) code').allTextContents()).toEqual(
      picked,
    );
    expect((await serverOf(serverId)).toolIds.sort()).toEqual(
      picked.map((name) => ids.get(name)!).sort(),
    );
  });

  it('saves on Enter in the name field once the catalogue is searched instead', async () => {
    const make = factories(t.app);
    const overflow = await make.gateway({ name: 'Overflow' });
    const total = GATEWAYS.length * TOOLS_PER_GATEWAY;
    await make.tools(
      overflow,
      Array.from({ length: PICKER_LIST_ALL_UP_TO + 1 - total }, (_, i) => `spill_${i}`),
    );
    await page.goto(`/admin/servers/${serverId}/edit`);
    expect(await page.getByLabel(/^Search all/).count()).toBe(1);
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('Renamed by Enter');
    await name.press('Enter');
    await page.waitForURL(`**/admin/servers/${serverId}`);
    expect(await page.getByRole('status').textContent()).toContain(
      "Server 'Renamed by Enter' saved.",
    );
    expect(await serverOf(serverId)).toMatchObject({ name: 'Renamed by Enter' });
    expect((await serverOf(serverId)).toolIds).toHaveLength(3);
  });

  it('searches on Enter in the search box, keeps the ticks, and saves the pick', async () => {
    await page.goto(`/admin/servers/${serverId}/edit`);
    await page.getByLabel('Name', { exact: true }).fill('Not saved yet');
    const search = page.getByLabel(/^Search all/);
    await search.fill('spill_799');
    await search.press('Enter');
    await page.getByText('1 tool match “spill_799”.').waitFor();
    expect(await serverOf(serverId)).toMatchObject({ name: 'Renamed by Enter' });
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Not saved yet');
    for (const name of ['north-op_150', 'south-op_042', 'west-op_299']) {
      expect(await box(name).isChecked()).toBe(true);
    }
    await box('overflow-spill_799').check();
    await screenshot(page, 'server-form-search-mode');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/admin/servers/${serverId}`);
    const saved = await serverOf(serverId);
    expect(saved.name).toBe('Not saved yet');
    expect(saved.toolIds).toHaveLength(4);
  });

  it('raised no script error on the way', () => {
    expect(problems).toEqual([]);
  });
});

/** The visible part only: the whole page is 1,200 rows long. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}
