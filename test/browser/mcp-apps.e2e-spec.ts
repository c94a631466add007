import { createServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, type Page } from 'playwright-core';
import { type AppUpstream, startAppUpstream } from '../fixtures/app-upstream';
import { type LoopbackChild, startLoopbackChild } from '../fixtures/loopback-child';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { bundleScript } from './support/bundle';
import { describeWithBrowser, launchChromium } from './support/launch-chromium';

function npmServer(name: string): string {
  return join(
    __dirname,
    '..',
    '..',
    'node_modules',
    '@modelcontextprotocol',
    name,
    'dist',
    'index.js',
  );
}

interface ToolJson {
  id: string;
  originalName: string;
  toolHash: string;
}

/** Two MCP Apps Views side by side in one host page, each calling its backend through Portico. */
describeWithBrowser('MCP Apps in a browser host', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let hostServer: HttpServer;
  let client: Client;
  const upstreams: AppUpstream[] = [];
  let plain: UpstreamFixture;
  const children: LoopbackChild[] = [];
  /** The tools/call names the host sent to Portico, in order. */
  const called: string[] = [];
  const tools: Record<string, Record<string, ToolJson>> = {};

  /**
   * Registers a gateway and reads its tools: the test app's registrations answer once their first
   * sync has ended (an npm server's child process can be slow to answer on a loaded machine).
   */
  async function register(name: string, url: string): Promise<void> {
    const gateway = (await t.api().post('/api/v1/gateways').send({ name, url }).expect(201)).body;
    expect(gateway).toMatchObject({ status: 'healthy', lastError: null });
    const { body } = await t.api().get('/api/v1/tools').query({ gatewayId: gateway.id });
    tools[name] = Object.fromEntries(
      (body.items as ToolJson[]).map((tool) => [tool.originalName, tool]),
    );
  }

  function uriOf(gateway: string, tool: string): string {
    return `ui://prefab/tool/${tools[gateway]![tool]!.toolHash}/renderer.html`;
  }

  function hashed(gateway: string, tool: string): string {
    return `${tools[gateway]![tool]!.toolHash}_${tool}`;
  }

  beforeAll(async () => {
    const [timeApp, host] = await Promise.all([
      bundleScript('fixtures/time-app.mts'),
      bundleScript('host/host-page.mts'),
    ]);
    const appPage = (label: string) =>
      `<!doctype html><html><head><title>${label}</title></head><body><h1>${label}</h1><button id="call">Refresh</button><pre id="out"></pre><script>${timeApp}</script></body></html>`;

    t = await startTestApp();
    upstreams.push(await startAppUpstream({ label: 'alpha', html: appPage('alpha') }));
    upstreams.push(await startAppUpstream({ label: 'beta', html: appPage('beta') }));
    let reports = 0;
    plain = await startUpstream({
      name: 'plain',
      tools: [
        {
          definition: {
            name: 'report',
            title: 'Sales report',
            description: 'Sales by region',
            inputSchema: { type: 'object', properties: {} },
          },
          handler: () => {
            reports += 1;
            return {
              content: [{ type: 'text', text: `report ${reports}` }],
              structuredContent: {
                edition: reports,
                regions: [
                  { region: 'North', sales: 10 * reports },
                  { region: 'South', sales: 20 * reports },
                ],
              },
            };
          },
        },
      ],
    });
    children.push(await startLoopbackChild(npmServer('server-basic-vanillajs')));
    children.push(await startLoopbackChild(npmServer('server-basic-react')));
    await register('Alpha', upstreams[0]!.fixture.url);
    await register('Beta', upstreams[1]!.fixture.url);
    await register('Plain', plain.url);
    await register('Vanilla', `http://127.0.0.1:${children[0]!.port}/mcp`);
    await register('React', `http://127.0.0.1:${children[1]!.port}/mcp`);
    await t
      .api()
      .patch(`/api/v1/tools/${tools.Plain!.report!.id}`)
      .send({ appConfig: { prefab: true } })
      .expect(200);

    client = await connectClient(t.baseUrl, {
      token: t.token,
      capabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
    });
    hostServer = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>Host</title><style>iframe{width:560px;height:360px;border:1px solid #888}</style></head><body><script>${host}</script></body></html>`,
        );
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    page = await browser.newPage();
    await page.exposeFunction('porticoRequest', async (method: string, params: unknown) => {
      if (method === 'tools/call') called.push((params as { name: string }).name);
      return client.request({ method, params: params as Record<string, unknown> }, ResultSchema);
    });
    await page.goto(`http://127.0.0.1:${(hostServer.address() as AddressInfo).port}/`);
  });

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await new Promise((resolve) => hostServer?.close(resolve));
    await t?.close();
    await Promise.all([
      ...upstreams.map((upstream) => upstream.fixture.close()),
      plain?.close(),
      ...children.map((child) => child.stop()),
    ]);
  });

  it('runs two upstream apps with the same tool and URI, each reaching its own backend', async () => {
    await page.evaluate(
      ({ alpha, beta }) =>
        Promise.all([
          window.mountApp('alpha', alpha, 'alpha-get-time'),
          window.mountApp('beta', beta, 'beta-get-time'),
        ]),
      { alpha: uriOf('Alpha', 'get-time'), beta: uriOf('Beta', 'get-time') },
    );
    const alpha = page.frameLocator('#alpha');
    const beta = page.frameLocator('#beta');
    await alpha.locator('#out').getByText('shown:{"upstream":"alpha","tool":"get-time"}').waitFor();
    await beta.locator('#out').getByText('shown:{"upstream":"beta","tool":"get-time"}').waitFor();

    await alpha.locator('#call').click();
    await alpha.locator('#out').getByText('called:{"upstream":"alpha","tool":"refresh"}').waitFor();
    await beta.locator('#call').click();
    await beta.locator('#out').getByText('called:{"upstream":"beta","tool":"refresh"}').waitFor();
    expect(called).toEqual(
      expect.arrayContaining([hashed('Alpha', 'refresh'), hashed('Beta', 'refresh')]),
    );
    expect(called).not.toContain('refresh');
  });

  it('draws a result with the Prefab renderer, whose button calls the tool again', async () => {
    await page.evaluate(
      (uri) => window.mountApp('report', uri, 'plain-report'),
      uriOf('Plain', 'report'),
    );
    const report = page.frameLocator('#report');
    await report.getByRole('heading', { name: 'Sales report' }).waitFor();
    await report.locator('td', { hasText: '20' }).waitFor();
    expect(await report.locator('th').allTextContents()).toEqual(['region', 'sales']);
    expect(await report.locator('dt').allTextContents()).toEqual(['edition', 'regions']);

    await report.getByRole('button', { name: 'Refresh' }).click();
    await report.locator('td', { hasText: '40' }).waitFor();
    expect(await report.locator('td').allTextContents()).toEqual(['North', '20', 'South', '40']);
    expect(called.at(-1)).toBe(hashed('Plain', 'report'));
  });

  it('runs the npm basic-vanillajs and basic-react servers side by side', async () => {
    await page.evaluate(
      ({ vanilla, react }) =>
        Promise.all([
          window.mountApp('vanilla', vanilla, 'vanilla-get-time'),
          window.mountApp('react', react, 'react-get-time'),
        ]),
      { vanilla: uriOf('Vanilla', 'get-time'), react: uriOf('React', 'get-time') },
    );
    const before = called.length;
    const vanilla = page.frameLocator('#vanilla');
    await vanilla.locator('#get-time-btn').click();
    await vanilla
      .locator('#server-time')
      .getByText(/^\d{4}-\d\d-\d\dT/)
      .waitFor();

    const react = page.frameLocator('#react');
    await react.getByRole('button', { name: 'Get Server Time' }).click();
    await react
      .locator('code')
      .getByText(/^\d{4}-\d\d-\d\dT/)
      .waitFor();

    expect(called.slice(before)).toEqual(
      expect.arrayContaining([hashed('Vanilla', 'get-time'), hashed('React', 'get-time')]),
    );
    expect(called.slice(before)).not.toContain('get-time');
  });
});
