import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { type AppUpstream, startAppUpstream } from '../fixtures/app-upstream';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, USER_PASSWORD } from '../support/identities';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { bundleScript } from './support/bundle';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';
import { logIn } from './support/log-in';

/** A tool whose input schema has every shape the form draws, and one it cannot. */
const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    customer: { type: 'string', description: 'Who orders <b>this</b>' },
    quantity: { type: 'integer' },
    price: { type: 'number' },
    express: { type: 'boolean' },
    size: { enum: ['S', 'M', 'L'] },
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
      required: ['street'],
    },
    tags: { type: 'array', items: { type: 'string' } },
    lines: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, count: { type: 'integer' } },
      },
    },
    extra: { oneOf: [{ type: 'string' }, { type: 'object' }] },
  },
  required: ['customer', 'quantity'],
};

interface AuditJson {
  username: string | null;
  actedBy: string | null;
  clientName: string | null;
  target: string | null;
  outcome: string;
}

describeWithBrowser('the admin playground in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let shop: UpstreamFixture;
  let app: AppUpstream;
  let serverId: string;
  const problems: string[] = [];

  async function signIn(username: string, password: string): Promise<Page> {
    const context: BrowserContext = await browser.newContext({ baseURL: t.baseUrl });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // A refusal's page comes with its status (404), which the console reports as a failed load.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(`console: ${message.text()}`);
    });
    await logIn(page, username, password);
    return page;
  }

  async function auditOf(target: string): Promise<AuditJson[]> {
    let entries: AuditJson[] = [];
    await waitFor(async () => {
      const page = await t.api().get('/api/v1/audit').query({ action: 'tools/call', tool: target });
      entries = page.body.items as AuditJson[];
      return entries.length > 0;
    }, `an audit entry of ${target}`);
    return entries;
  }

  beforeAll(async () => {
    const timeApp = await bundleScript('fixtures/time-app.mts');
    t = await startTestApp();
    shop = await startUpstream({
      name: 'shop',
      tools: [
        {
          definition: { name: 'order', description: 'Places an order', inputSchema: ORDER_SCHEMA },
          handler: (args) => ({
            content: [{ type: 'text', text: `ordered for ${String(args.customer)}` }],
            structuredContent: { received: args },
          }),
        },
        {
          definition: {
            name: 'refund',
            description: 'Refunds an order',
            inputSchema: { type: 'object', properties: { order: { type: 'string' } } },
          },
          handler: (args) => ({
            content: [{ type: 'text', text: `refunded ${String(args.order)}` }],
          }),
        },
        {
          definition: {
            name: 'wipe',
            description: 'Deletes every order',
            inputSchema: { type: 'object', properties: {} },
          },
          handler: () => ({ content: [{ type: 'text', text: 'wiped' }] }),
        },
      ],
    });
    app = await startAppUpstream({
      label: 'clock',
      html: `<!doctype html><html><head><title>clock</title></head><body><button id="call">Refresh</button><pre id="out">waiting</pre><script>${timeApp}</script></body></html>`,
      contentUi: { csp: { connectDomains: ['https://api.clock.example'] } },
    });
    const red = await createTeam(t, 'red');
    const blue = await createTeam(t, 'blue');
    await createUser(t, 'rita', 'member', [red]);
    await createUser(t, 'nora', 'member', [blue]);
    const gateway = (
      await t.api().post('/api/v1/gateways').send({ name: 'Shop', url: shop.url }).expect(201)
    ).body;
    await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Clock', url: app.fixture.url })
      .expect(201);
    const tools = (await t.api().get('/api/v1/tools').query({ gatewayId: gateway.id })).body
      .items as { id: string }[];
    serverId = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Red shop', toolIds: tools.map((tool) => tool.id), teamId: red })
        .expect(201)
    ).body.id;
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-wiping-for-members',
        expression: 'principal.role == "member" && tool.originalName == "wipe"',
        effect: 'deny',
      })
      .expect(201);
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'refunds-need-a-yes',
        expression: 'tool.originalName == "refund"',
        effect: 'approve',
        approval: { message: 'Refunds move money.' },
      })
      .expect(201);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await shop?.close();
    await app?.fixture.close();
  });

  it('lists what the chosen user may call, and calls a tool as them from a form drawn from its schema', async () => {
    const page = await signIn('admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Playground', exact: true }).click();
    await page.getByLabel('Endpoint').selectOption({ label: 'Red shop' });
    await page.getByLabel('Act as (username or id)').fill('rita');
    await page.getByRole('button', { name: 'Show tools' }).click();
    expect(await page.locator('.playground-summary').textContent()).toContain(
      'rita (member; teams red): 2 tools to call, 1 hidden by policies',
    );
    const rows = await page.locator('table.playground-tools tbody tr').allTextContents();
    expect(rows.map((row) => row.replace(/\s+/g, ' ').trim())).toEqual([
      '1 shop-order shop allow Places an order',
      '2 shop-refund shop approve (refunds-need-a-yes) Refunds an order',
    ]);

    await page.getByRole('link', { name: 'shop-order' }).click();
    expect(await page.locator('#acting-as').textContent()).toContain('rita');
    // Required markers on the required fields only; descriptions escaped.
    expect(await page.locator('label', { hasText: 'customer' }).textContent()).toContain(
      '(required)',
    );
    expect(await page.locator('label', { hasText: 'price' }).textContent()).not.toContain(
      '(required)',
    );
    expect(await page.locator('form .hint', { hasText: 'Who orders <b>this</b>' }).count()).toBe(1);
    expect(await page.locator('form b').count()).toBe(0);
    // Enums and booleans are selects; a oneOf is a JSON field.
    expect(await page.getByLabel('size').evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await page.getByLabel('express').evaluate((el) => el.tagName)).toBe('SELECT');
    expect(
      await page.getByText('JSON: the form cannot draw this part (it uses oneOf).').count(),
    ).toBe(1);

    await page.getByLabel('customer').fill('Ada');
    await page.getByLabel('quantity').fill('3');
    await page.getByLabel('price').fill('9.5');
    await page.getByLabel('express').selectOption('true');
    await page.getByLabel('size').selectOption({ label: 'M' });
    const address = page.locator('fieldset[data-field="arg.address"]');
    expect(await address.locator('legend').textContent()).toContain('address');
    await address.getByLabel('street').fill('1 Main St');
    const tags = page.locator('fieldset[data-array="arg.tags"]');
    await tags.getByLabel('Item').fill('gift');
    await tags.getByRole('button', { name: 'Add an item to tags' }).click();
    await tags.getByLabel('Item').nth(1).fill('fragile');
    await tags.getByRole('button', { name: 'Add an item to tags' }).click();
    await tags.getByLabel('Item').nth(2).fill('dropped');
    await tags.getByRole('button', { name: 'Remove item' }).nth(2).click();
    const lines = page.locator('fieldset[data-array="arg.lines"]');
    await lines.getByLabel('sku').fill('A-1');
    await lines.getByLabel('count').fill('2');
    await lines.getByRole('button', { name: 'Add an item to lines' }).click();
    await lines.getByLabel('sku').nth(1).fill('B-2');
    await page.getByLabel('extra').fill('{"note": "<i>hi</i>"}');
    await page.getByRole('button', { name: 'Call', exact: true }).click();

    expect(await page.locator('.invoke-result h3').textContent()).toContain('OK');
    expect(await page.locator('.result-text').first().textContent()).toBe('ordered for Ada');
    expect(JSON.parse((await page.locator('.result-structured').textContent())!)).toEqual({
      received: {
        customer: 'Ada',
        quantity: 3,
        price: 9.5,
        express: true,
        size: 'M',
        address: { street: '1 Main St' },
        tags: ['gift', 'fragile'],
        lines: [{ sku: 'A-1', count: 2 }, { sku: 'B-2' }],
        extra: { note: '<i>hi</i>' },
      },
    });
    // The form shows what was sent, ready for the next call.
    expect(await page.getByLabel('customer').inputValue()).toBe('Ada');
    expect(await tags.getByLabel('Item').count()).toBe(2);

    const [entry] = await auditOf('shop-order');
    expect(entry).toMatchObject({
      username: 'rita',
      actedBy: 'admin',
      clientName: 'Portico playground',
      outcome: 'ok',
    });

    // The raw JSON fallback, checked against the schema before anything is sent.
    await page.locator('details.raw-json summary').click();
    await page.getByLabel('Arguments (JSON object)').fill('{"customer": "Bob"}');
    await page.getByRole('button', { name: 'Call with the JSON' }).click();
    expect(await page.locator('#call-error').textContent()).toContain(
      "must have required property 'quantity'",
    );
    await page.getByLabel('Arguments (JSON object)').fill('{"customer": "Bob", "quantity": 1}');
    await page.getByRole('button', { name: 'Call with the JSON' }).click();
    expect(await page.locator('.result-text').first().textContent()).toBe('ordered for Bob');
    expect(problems).toEqual([]);
  });

  it('shows a user without the right nothing to call, and lets only admins act as another user', async () => {
    const admin = await signIn('admin', ADMIN_PASSWORD);
    await admin.goto(`/admin/playground?server=${serverId}&as=nora`);
    expect(await admin.locator('#sight-error').textContent()).toContain(
      'nora may not use this endpoint: This virtual server belongs to a team you are not in.',
    );
    expect(await admin.locator('table.playground-tools').count()).toBe(0);
    expect(await admin.locator('#nothing-to-call').count()).toBe(1);
    // Not even by the tool's own address.
    await admin.goto(`/admin/playground/tool?server=${serverId}&as=nora&name=shop-order`);
    expect(await admin.locator('#tool-error').count()).toBe(1);
    expect(await admin.locator('form.playground-call').count()).toBe(0);
    // Rita may use the server but not the tool a policy denies her.
    await admin.goto(`/admin/playground/tool?server=${serverId}&as=rita&name=shop-wipe`);
    expect(await admin.locator('#tool-error').textContent()).toContain(
      "rita has no tool named 'shop-wipe' to call here.",
    );

    const rita = await signIn('rita', USER_PASSWORD);
    await rita.getByRole('link', { name: 'Playground', exact: true }).click();
    expect(await rita.getByLabel('Act as (username or id)').count()).toBe(0);
    await rita.getByLabel('Endpoint').selectOption({ label: 'Red shop' });
    await rita.getByRole('button', { name: 'Show tools' }).click();
    expect(await rita.locator('table.playground-tools tbody tr').count()).toBe(2);
    await rita.goto(`/admin/playground?server=${serverId}&as=nora`);
    expect(await rita.locator('#sight-error').textContent()).toContain(
      'Only an admin may act as another user.',
    );
    // /mcp is for admins only: a member sees nothing to call there.
    await rita.goto('/admin/playground?server=');
    expect(await rita.locator('#sight-error').textContent()).toContain('only admins may use it');
    expect(problems).toEqual([]);
  });

  it('asks the person in front of it for the approval a policy needs, as the user’s client would', async () => {
    const page = await signIn('admin', ADMIN_PASSWORD);
    await page.goto(`/admin/playground/tool?server=${serverId}&as=rita&name=shop-refund`);
    await page.getByLabel('order').fill('A-7');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    expect(await page.locator('.input-message').textContent()).toContain('Refunds move money.');
    await page.getByRole('button', { name: 'Decline' }).click();
    expect(await page.locator('#call-error').textContent()).toContain(
      "Not approved: rita declined the call of 'shop-refund'",
    );

    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await page.getByRole('button', { name: 'Accept' }).click();
    expect(await page.locator('.result-text').first().textContent()).toBe('refunded A-7');
    let approved: (AuditJson & { approval: { outcome: string } | null }) | undefined;
    await waitFor(async () => {
      const entries = (await auditOf('shop-refund')) as (typeof approved)[];
      approved = entries.find((entry) => entry?.approval?.outcome === 'approved');
      return approved !== undefined;
    }, 'the approved refund in the audit trail');
    expect(approved).toMatchObject({ username: 'rita', actedBy: 'admin', outcome: 'ok' });
    expect(problems).toEqual([]);
  });

  it('shows an MCP App tool’s UI in a sandboxed frame under its CSP, given the call’s result', async () => {
    const page = await signIn('admin', ADMIN_PASSWORD);
    await page.goto('/admin/playground?server=');
    await page.getByRole('link', { name: 'clock-get-time' }).click();
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    expect(await page.locator('.result-text').first().textContent()).toBe('clock:get-time');
    const frame = page.locator('iframe.app-frame');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    await page
      .frameLocator('iframe.app-frame')
      .locator('#out', { hasText: 'shown:{"upstream":"clock","tool":"get-time"}' })
      .waitFor();
    const src = (await frame.getAttribute('src'))!;
    const served = await page.request.get(src);
    expect(served.status()).toBe(200);
    const csp = served.headers()['content-security-policy']!;
    expect(csp).toContain('connect-src https://api.clock.example');
    expect(csp).toContain("script-src 'unsafe-inline'");
    expect(csp).toContain('sandbox allow-scripts');
    // The View calls its own backend tool through the playground's host, as the same user.
    await page.frameLocator('iframe.app-frame').locator('#call').click();
    await page
      .frameLocator('iframe.app-frame')
      .locator('#out', { hasText: 'called:{"upstream":"clock","tool":"refresh"}' })
      .waitFor();
    const tools = (await t.api().get('/api/v1/tools').query({ q: 'refresh' })).body.items as {
      originalName: string;
      toolHash: string;
    }[];
    const hash = tools.find((tool) => tool.originalName === 'refresh')!.toolHash;
    const [refresh] = await auditOf(`${hash}_refresh`);
    expect(refresh).toMatchObject({ username: 'admin', actedBy: 'admin', outcome: 'ok' });
    // Portico is the host here: the View reaches no other upstream's tool, by any name.
    const view = page.frames().find((candidate) => candidate.url().includes('/playground/app'))!;
    const shopTools = (await t.api().get('/api/v1/tools').query({ q: 'order' })).body.items as {
      name: string;
      originalName: string;
      toolHash: string;
    }[];
    const order = shopTools.find((tool) => tool.originalName === 'order')!;
    const callsBefore = shop.calls.length;
    for (const name of [order.name, `${order.toolHash}_order`, 'clock-get-time', `${hash}_nope`]) {
      const answer = await view.evaluate(
        (called) =>
          new Promise<unknown>((resolve) => {
            window.addEventListener('message', (event) => {
              if ((event.data as { id?: unknown }).id === 77) resolve(event.data);
            });
            window.parent.postMessage(
              { jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: called } },
              '*',
            );
          }),
        name,
      );
      expect(answer).toMatchObject({ id: 77, error: { code: -32602 } });
    }
    expect(shop.calls.length).toBe(callsBefore);
    expect(problems).toEqual([]);
  });
});
