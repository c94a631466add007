import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Tool } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { EventBus } from '../../src/events/event-bus';
import {
  APP_MIME,
  type AppUpstream,
  startAppUpstream,
  TOOL_UI_EXTRAS,
} from '../fixtures/app-upstream';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, eventually } from '../support/mcp-client';
import { serverToken } from '../support/tokens';
import { startTestApp, type TestApp } from '../support/test-app';

const UI = 'io.modelcontextprotocol/ui';
const EMPTY_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

interface ToolJson {
  id: string;
  name: string;
  originalName: string;
  gatewayId: string;
  toolHash: string;
  meta: Record<string, unknown> | null;
}

interface ResourceText {
  uri: string;
  mimeType?: string;
  text: string;
  _meta: {
    vendor?: string;
    ui: {
      csp: Record<string, string[]>;
      permissions?: Record<string, object>;
      prefersBorder?: boolean;
      domain?: string;
    };
  };
}

/** The bridge's name-to-hash table, as embedded in a served page. */
function bridgeTable(html: string): [string, string][] {
  const match = /<script data-portico="call-rewriter">[\s\S]*?\}\)\((\[.*?\])\);<\/script>/.exec(
    html,
  );
  if (!match) throw new Error('no bridge in the page');
  return JSON.parse(match[1]!);
}

// The separator is `_` here so that a virtual name can look like a hashed backend name.
describe('MCP Apps through the gateway', () => {
  let t: TestApp;
  let alpha: AppUpstream;
  let beta: AppUpstream;
  let plain: UpstreamFixture;
  let gated: AppUpstream | undefined;
  const gateways: Record<string, { id: string; tools: Record<string, ToolJson> }> = {};
  const clients: Client[] = [];
  let all: Client;

  async function register(name: string, url: string) {
    const gateway = (await t.api().post('/api/v1/gateways').send({ name, url }).expect(201)).body;
    gateways[name] = { id: gateway.id, tools: await toolsOf(gateway.id) };
  }

  async function toolsOf(gatewayId: string): Promise<Record<string, ToolJson>> {
    const { body } = await t.api().get('/api/v1/tools').query({ gatewayId }).expect(200);
    return Object.fromEntries((body.items as ToolJson[]).map((tool) => [tool.originalName, tool]));
  }

  function tool(gateway: string, name: string): ToolJson {
    return gateways[gateway]!.tools[name]!;
  }

  function uriOf(gateway: string, name: string): string {
    return `ui://prefab/tool/${tool(gateway, name).toolHash}/renderer.html`;
  }

  function hashed(gateway: string, name: string): string {
    return `${tool(gateway, name).toolHash}_${name}`;
  }

  async function connect(options: Parameters<typeof connectClient>[1]): Promise<Client> {
    const client = await connectClient(t.baseUrl, options);
    clients.push(client);
    return client;
  }

  async function read(client: Client, uri: string): Promise<ResourceText> {
    const { contents } = await client.readResource({ uri });
    expect(contents).toHaveLength(1);
    return contents[0] as ResourceText;
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { GATEWAY_TOOL_NAME_SEPARATOR: '_' } });
    alpha = await startAppUpstream({
      label: 'alpha',
      html: '<!DOCTYPE html>\n<html lang="en">\n<head>\n<title>Alpha</title><script>window.app = "alpha";</script></head><body>alpha app</body></html>',
      listUi: { csp: { connectDomains: ['https://list.alpha.example'] } },
      contentUi: {
        csp: {
          // What an upstream declares that is no single origin never reaches the host's CSP.
          connectDomains: [
            'https://api.alpha.example',
            '*',
            'https:',
            'https://list.alpha.example',
          ],
          resourceDomains: ['https://*.alpha.example', 'data:', 'blob:', "'unsafe-eval'"],
          frameDomains: ['https://frames.alpha.example', 'https://*.com', 'http://evil.example'],
          baseUriDomains: ["https://base.alpha.example; script-src 'unsafe-inline'", 'junk'],
        },
        permissions: { camera: {} },
        prefersBorder: true,
        domain: 'alpha.sandbox.example',
      },
      tools: [echoTool('save', 'alpha')],
    });
    beta = await startAppUpstream({
      label: 'beta',
      html: '<!doctype html><html><body><script>window.app = "beta";</script>beta app</body></html>',
      contentUi: { csp: { resourceDomains: ['https://cdn.beta.example'] } },
      asBlob: true,
    });
    plain = await startUpstream({
      name: 'plain',
      tools: [
        echoTool('save', 'plain'),
        {
          definition: {
            name: 'report',
            description: 'A report',
            inputSchema: { type: 'object', properties: { month: { type: 'string' } } },
          },
          handler: (args) => ({
            content: [{ type: 'text', text: 'report' }],
            structuredContent: { month: args.month ?? null, rows: [{ item: 'a', total: 1 }] },
          }),
        },
      ],
    });
    await register('Alpha', alpha.fixture.url);
    await register('Beta', beta.fixture.url);
    await register('deadbeefcafe', plain.url);
    // Give alpha's `save` the hash that `deadbeefcafe_save` would name if it were a hashed name.
    await t.app
      .get(DataSource)
      .query(`UPDATE tool SET tool_hash = 'deadbeefcafe' WHERE id = $1`, [
        tool('Alpha', 'save').id,
      ]);
    await t.app
      .get(EventBus)
      .publish({ type: 'catalog.changed', gatewayIds: [gateways.Alpha!.id] });
    gateways.Alpha!.tools = await toolsOf(gateways.Alpha!.id);
    all = await connect({
      token: t.token,
      capabilities: { extensions: { [UI]: { mimeTypes: [APP_MIME] } } },
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await t.close();
    await Promise.all([
      alpha.fixture.close(),
      beta.fixture.close(),
      plain.close(),
      gated?.fixture.close(),
    ]);
  });

  describe('tools/list and REST', () => {
    it('gives each upstream UI its own per-tool URI, on a copy without CSP or permissions', async () => {
      const [stored] = await t.app
        .get(DataSource)
        .query(`SELECT meta FROM tool WHERE id = $1`, [tool('Alpha', 'get-time').id]);
      expect(stored.meta.ui).toMatchObject(TOOL_UI_EXTRAS);
      const { tools } = await all.listTools();
      const byName = new Map(tools.map((listed) => [listed.name, listed]));
      const alphaTime = byName.get('alpha_get-time')!;
      const betaTime = byName.get('beta_get-time')!;
      expect(alphaTime._meta).toEqual({
        ui: { resourceUri: uriOf('Alpha', 'get-time') },
        'ui/resourceUri': uriOf('Alpha', 'get-time'),
      });
      expect(betaTime._meta).toEqual({
        ui: { resourceUri: uriOf('Beta', 'get-time') },
        'ui/resourceUri': uriOf('Beta', 'get-time'),
      });
      expect(uriOf('Alpha', 'get-time')).not.toBe(uriOf('Beta', 'get-time'));
      expect(byName.get('deadbeefcafe_save')!._meta).toBeUndefined();
    });

    it('lists app-only tools under their hashed name only', async () => {
      const names = (await all.listTools()).tools.map((listed) => listed.name);
      expect(names).toContain(hashed('Alpha', 'refresh'));
      expect(names).toContain(hashed('Beta', 'refresh'));
      expect(names).not.toContain('alpha_refresh');
      expect(names).toContain('alpha_model-time');
      expect(names).not.toContain(hashed('Alpha', 'model-time'));
    });

    it('shows tool_search matches with the same URI, without CSP or permissions', async () => {
      const server = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({
            name: 'Searching apps',
            toolIds: [tool('Alpha', 'get-time').id],
            toolSearch: { enabled: true, alwaysLoaded: [] },
          })
          .expect(201)
      ).body;
      const searcher = await connect({ token: t.token, path: `/servers/${server.id}/mcp` });
      const result = await searcher.callTool({
        name: 'tool_search',
        arguments: { query: 'select:alpha_get-time' },
      });
      const found = (result.structuredContent as { tools: Tool[] }).tools;
      expect(found.map((match) => match._meta)).toEqual([
        {
          ui: { resourceUri: uriOf('Alpha', 'get-time') },
          'ui/resourceUri': uriOf('Alpha', 'get-time'),
        },
      ]);
    });

    it('shows the same URI in the REST API', async () => {
      const { body } = await t.api().get(`/api/v1/tools/${tool('Alpha', 'get-time').id}`);
      expect(body.meta).toEqual({
        ui: { resourceUri: uriOf('Alpha', 'get-time') },
        'ui/resourceUri': uriOf('Alpha', 'get-time'),
      });
      const byName = await t.api().get('/api/v1/tools/by-name/alpha_refresh').expect(200);
      expect(byName.body.meta.ui).toEqual({
        resourceUri: uriOf('Alpha', 'refresh'),
        visibility: ['app'],
      });
    });
  });

  describe('capabilities', () => {
    it('advertises the UI extension and resources', () => {
      expect(all.getServerCapabilities()).toMatchObject({
        resources: {},
        extensions: { [UI]: { mimeTypes: [APP_MIME] } },
      });
    });

    it("passes the client's extension capability through to upstreams", async () => {
      await all.callTool({ name: 'alpha_get-time', arguments: {} });
      expect(alpha.clientCapabilities).toContainEqual({
        extensions: { [UI]: { mimeTypes: [APP_MIME] } },
      });
    });
  });

  describe('hashed backend names', () => {
    it('reach the upstream whose tool has the hash', async () => {
      const first = await all.callTool({ name: hashed('Alpha', 'get-time'), arguments: {} });
      const second = await all.callTool({ name: hashed('Beta', 'get-time'), arguments: {} });
      const appOnly = await all.callTool({ name: hashed('Beta', 'refresh'), arguments: {} });
      expect(first.structuredContent).toEqual({ upstream: 'alpha', tool: 'get-time' });
      expect(second.structuredContent).toEqual({ upstream: 'beta', tool: 'get-time' });
      expect(appOnly.structuredContent).toEqual({ upstream: 'beta', tool: 'refresh' });
      expect(beta.fixture.calls.at(-1)?.name).toBe('refresh');
    });

    it('need the matching original name and app visibility', async () => {
      for (const name of [
        `${tool('Alpha', 'get-time').toolHash}_refresh`,
        hashed('Alpha', 'model-time'),
        '000000000000_get-time',
      ]) {
        await expect(all.callTool({ name, arguments: {} })).rejects.toThrow(
          `Unknown tool: ${name}`,
        );
      }
    });

    it('come before a virtual name that looks hashed, which is itself unless it names an app tool', async () => {
      // deadbeefcafe_report names no app's tool: it is plain's report.
      const report = await all.callTool({
        name: 'deadbeefcafe_report',
        arguments: { month: 'may' },
      });
      expect(report.structuredContent).toMatchObject({ month: 'may' });
      // deadbeefcafe_save names alpha's save, an app's tool: a tool whose name looks like it (here
      // plain's save; on a server of original names, another upstream's tool named so) takes
      // none of the app's calls.
      expect(hashed('Alpha', 'save')).toBe('deadbeefcafe_save');
      const result = await all.callTool({ name: 'deadbeefcafe_save', arguments: { x: 1 } });
      expect(result.structuredContent).toEqual({ upstream: 'alpha', tool: 'save', args: { x: 1 } });
    });
  });

  describe('resources', () => {
    it('lists one resource per tool with a UI, and nothing else', async () => {
      const { resources } = await all.listResources();
      expect(resources.map((resource) => resource.uri).sort()).toEqual(
        [
          uriOf('Alpha', 'get-time'),
          uriOf('Alpha', 'refresh'),
          uriOf('Beta', 'get-time'),
          uriOf('Beta', 'refresh'),
        ].sort(),
      );
      expect(resources.find((resource) => resource.uri === uriOf('Alpha', 'get-time'))).toEqual({
        uri: uriOf('Alpha', 'get-time'),
        name: 'alpha_get-time',
        title: 'Get time (alpha)',
        description: 'UI of the tool alpha_get-time',
        mimeType: APP_MIME,
        _meta: { ui: { csp: EMPTY_CSP } },
      });
      expect((await all.listResourceTemplates()).resourceTemplates).toEqual([]);
    });

    it("serves each upstream's own page with the bridge first and its CSP merged", async () => {
      const page = await read(all, uriOf('Alpha', 'get-time'));
      expect(page.uri).toBe(uriOf('Alpha', 'get-time'));
      expect(page.mimeType).toBe(APP_MIME);
      expect(page.text).toMatch(
        /^<!DOCTYPE html>\n<html lang="en">\n<head><script data-portico="call-rewriter">[\s\S]*<\/script>\n<title>Alpha<\/title><script>window.app = "alpha";/,
      );
      expect(page.text).toContain('alpha app');
      expect(new Map(bridgeTable(page.text))).toEqual(
        new Map([
          ['get-time', tool('Alpha', 'get-time').toolHash],
          ['refresh', tool('Alpha', 'refresh').toolHash],
          ['save', 'deadbeefcafe'],
        ]),
      );
      expect(page._meta).toEqual({
        vendor: 'alpha',
        ui: {
          csp: {
            connectDomains: ['https://list.alpha.example', 'https://api.alpha.example'],
            resourceDomains: ['https://*.alpha.example'],
            frameDomains: ['https://frames.alpha.example'],
            baseUriDomains: [],
          },
          permissions: { camera: {} },
          prefersBorder: true,
          domain: 'alpha.sandbox.example',
        },
      });

      const other = await read(all, uriOf('Beta', 'get-time'));
      expect(other.text).toContain('beta app');
      expect(other.text).not.toContain('alpha app');
      expect(other.text.startsWith('<!doctype html><html><script data-portico')).toBe(true);
      expect(new Map(bridgeTable(other.text)).get('get-time')).toBe(
        tool('Beta', 'get-time').toolHash,
      );
      expect(other._meta.ui).toEqual({
        csp: { ...EMPTY_CSP, resourceDomains: ['https://cdn.beta.example'] },
      });
    });

    it('adds the operator’s CSP, permissions and border preference after the upstream’s', async () => {
      const id = tool('Alpha', 'get-time').id;
      await t
        .api()
        .patch(`/api/v1/tools/${id}`)
        .send({
          appConfig: {
            csp: {
              connectDomains: ['https://api.alpha.example', 'https://extra.example'],
              frameDomains: ['http://localhost:5173'],
            },
            permissions: { clipboardWrite: {} },
            prefersBorder: false,
          },
        })
        .expect(200);
      await eventually(async () => {
        const { ui } = (await read(all, uriOf('Alpha', 'get-time')))._meta;
        expect(ui.csp.connectDomains).toEqual([
          'https://list.alpha.example',
          'https://api.alpha.example',
          'https://extra.example',
        ]);
        expect(ui.csp.frameDomains).toEqual([
          'https://frames.alpha.example',
          'http://localhost:5173',
        ]);
        expect(ui.permissions).toEqual({ camera: {}, clipboardWrite: {} });
        expect(ui.prefersBorder).toBe(false);
      });
      // The list entry carries what is known without asking the upstream: the operator's part.
      const { resources } = await all.listResources();
      expect(
        resources.find((resource) => resource.uri === uriOf('Alpha', 'get-time'))?._meta,
      ).toEqual({
        ui: {
          csp: {
            ...EMPTY_CSP,
            connectDomains: ['https://api.alpha.example', 'https://extra.example'],
            frameDomains: ['http://localhost:5173'],
          },
          permissions: { clipboardWrite: {} },
          prefersBorder: false,
        },
      });
      const cleared = (
        await t.api().patch(`/api/v1/tools/${id}`).send({ appConfig: null }).expect(200)
      ).body;
      await new Promise((resolve) => setTimeout(resolve, 20));
      const again = (
        await t
          .api()
          .patch(`/api/v1/tools/${id}`)
          .send({ appConfig: null, enabled: true })
          .expect(200)
      ).body;
      expect(again.updatedAt).toBe(cleared.updatedAt);
    });

    it('answers unknown URIs with a JSON-RPC error', async () => {
      for (const uri of [
        'ui://get-time/mcp-app.html',
        'ui://prefab/tool/000000000000/renderer.html',
        uriOf('deadbeefcafe', 'save'),
      ]) {
        await expect(all.readResource({ uri })).rejects.toThrow(
          `MCP error -32002: Resource not found: ${uri}`,
        );
      }
    });
  });

  describe('Prefab renderer', () => {
    it('serves Portico’s renderer for a tool once an operator switches it on', async () => {
      const report = tool('deadbeefcafe', 'report');
      const { body } = await t
        .api()
        .patch(`/api/v1/tools/${report.id}`)
        .send({ appConfig: { prefab: true, csp: { resourceDomains: ['https://img.example'] } } })
        .expect(200);
      expect(body.meta).toEqual({ ui: { resourceUri: uriOf('deadbeefcafe', 'report') } });
      await eventually(async () => {
        const { tools } = await all.listTools();
        expect(tools.find((listed) => listed.name === 'deadbeefcafe_report')?._meta).toEqual({
          ui: { resourceUri: uriOf('deadbeefcafe', 'report') },
        });
      });
      const page = await read(all, uriOf('deadbeefcafe', 'report'));
      expect(page.mimeType).toBe(APP_MIME);
      expect(page.text).toContain(
        `<script type="application/json" id="portico-prefab-config">{"tool":"${hashed('deadbeefcafe', 'report')}","title":"report"}</script>`,
      );
      expect(page.text).not.toMatch(/<script[^>]*\ssrc=/);
      expect(page._meta).toEqual({
        ui: { csp: { ...EMPTY_CSP, resourceDomains: ['https://img.example'] } },
      });
      const { resources } = await all.listResources();
      const entry = resources.find((resource) => resource.uri === uriOf('deadbeefcafe', 'report'));
      expect(entry?._meta).toEqual(page._meta);
    });
  });

  describe('virtual servers', () => {
    let inside: Client;
    let outside: Client;

    beforeAll(async () => {
      const withAlpha = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Alpha time', toolIds: [tool('Alpha', 'get-time').id] })
          .expect(201)
      ).body;
      const withoutAlpha = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Saving', toolIds: [tool('deadbeefcafe', 'save').id] })
          .expect(201)
      ).body;
      inside = await connect({
        token: await serverToken(t, withAlpha.id),
        path: `/servers/${withAlpha.id}/mcp`,
      });
      outside = await connect({
        token: await serverToken(t, withoutAlpha.id),
        path: `/servers/${withoutAlpha.id}/mcp`,
      });
    });

    it('let an app call a backend tool of a gateway that supplies one of the server’s tools', async () => {
      expect((await inside.listTools()).tools.map((listed) => listed.name)).toEqual([
        'alpha_get-time',
      ]);
      const result = await inside.callTool({ name: hashed('Alpha', 'refresh'), arguments: {} });
      expect(result.structuredContent).toEqual({ upstream: 'alpha', tool: 'refresh' });
      const page = await read(inside, uriOf('Alpha', 'refresh'));
      expect(page.text).toContain('alpha app');
    });

    it('keep a server’s apps to its own gateways', async () => {
      const name = hashed('Alpha', 'refresh');
      await expect(outside.callTool({ name, arguments: {} })).rejects.toThrow(
        `Unknown tool: ${name}`,
      );
      await expect(inside.callTool({ name: hashed('Beta', 'get-time') })).rejects.toThrow(
        'Unknown tool',
      );
      for (const uri of [uriOf('Alpha', 'get-time'), uriOf('Alpha', 'refresh')]) {
        await expect(outside.readResource({ uri })).rejects.toThrow('Resource not found');
      }
      await expect(inside.readResource({ uri: uriOf('Beta', 'get-time') })).rejects.toThrow(
        'Resource not found',
      );
      expect((await outside.listResources()).resources).toEqual([]);
      expect(outside.getServerCapabilities()?.extensions).toBeUndefined();
      expect((await inside.listResources()).resources.map((resource) => resource.uri)).toEqual([
        uriOf('Alpha', 'get-time'),
      ]);
      expect(inside.getServerCapabilities()?.extensions).toEqual({
        [UI]: { mimeTypes: [APP_MIME] },
      });
    });

    it('reach no backend tool of a gateway whose app the server does not serve', async () => {
      // model-time has no UI (yet: see the next test), so this server serves no app of alpha's.
      const modelOnly = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Alpha, no app', toolIds: [tool('Alpha', 'model-time').id] })
          .expect(201)
      ).body;
      const noApp = await connect({
        token: await serverToken(t, modelOnly.id),
        path: `/servers/${modelOnly.id}/mcp`,
      });
      const name = hashed('Alpha', 'refresh');
      const calls = alpha.fixture.calls.length;
      await expect(noApp.callTool({ name, arguments: {} })).rejects.toThrow(
        `Unknown tool: ${name}`,
      );
      await expect(noApp.readResource({ uri: uriOf('Alpha', 'refresh') })).rejects.toThrow(
        'Resource not found',
      );
      expect(alpha.fixture.calls).toHaveLength(calls);
    });

    it('give an app’s page no hash of a backend tool a policy hides from the caller', async () => {
      const table = async (client: Client) =>
        new Map(bridgeTable((await read(client, uriOf('Alpha', 'get-time'))).text));
      for (const client of [all, inside]) expect((await table(client)).has('refresh')).toBe(true);
      const deny = await t
        .api()
        .post('/api/v1/policies')
        .send({
          name: 'hide-alpha-refresh',
          expression: `tool.id == "${tool('Alpha', 'refresh').id}"`,
          effect: 'deny',
        })
        .expect(201);
      try {
        await eventually(async () => {
          // A member of /mcp's scope, and a tool outside the server's own list.
          for (const client of [all, inside]) {
            const hashes = await table(client);
            expect(hashes.has('refresh')).toBe(false);
            expect(hashes.get('get-time')).toBe(tool('Alpha', 'get-time').toolHash);
            await expect(
              client.callTool({ name: hashed('Alpha', 'refresh'), arguments: {} }),
            ).rejects.toThrow('Unknown tool');
          }
        });
      } finally {
        await t.api().delete(`/api/v1/policies/${deny.body.id}`).expect(204);
      }
      await eventually(async () => expect((await table(inside)).has('refresh')).toBe(true));
    });

    it('read the UI of their own model-only tool, but not a gateway neighbour’s', async () => {
      // alpha's model-time has no UI of its own, so switch the renderer on for it.
      const modelTime = tool('Alpha', 'model-time');
      await t
        .api()
        .patch(`/api/v1/tools/${modelTime.id}`)
        .send({ appConfig: { prefab: true } })
        .expect(200);
      await eventually(async () => {
        const page = await read(all, uriOf('Alpha', 'model-time'));
        expect(page.text).toContain('"tool":null');
      });
      await expect(inside.readResource({ uri: uriOf('Alpha', 'model-time') })).rejects.toThrow(
        'Resource not found',
      );
    });
  });

  describe('with tool search on', () => {
    const deferred = (name: string) =>
      `Tool '${name}' is deferred and has not been promoted yet. Call tool_search (for example \`select:${name}\`) first, then retry.`;
    let searcher: Client;

    beforeAll(async () => {
      const server = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({
            name: 'Deferred apps',
            toolIds: [
              tool('Alpha', 'get-time').id,
              tool('Alpha', 'save').id,
              tool('deadbeefcafe', 'save').id,
            ],
            toolSearch: { enabled: true, alwaysLoaded: ['deadbeefcafe_save'] },
          })
          .expect(201)
      ).body;
      searcher = await connect({
        token: await serverToken(t, server.id),
        path: `/servers/${server.id}/mcp`,
      });
    });

    it('call a model-visible tool by its hashed name only once it is promoted', async () => {
      const calls = alpha.fixture.calls.length;
      for (const name of [hashed('Alpha', 'get-time'), hashed('Alpha', 'save')]) {
        expect(await searcher.callTool({ name, arguments: {} })).toMatchObject({
          isError: true,
          content: [{ text: deferred(name.endsWith('save') ? 'alpha_save' : 'alpha_get-time') }],
        });
      }
      // The always-loaded deadbeefcafe_save is spelt as alpha's save's hashed name, which it takes.
      expect(await searcher.callTool({ name: 'deadbeefcafe_save', arguments: {} })).toMatchObject({
        isError: true,
        content: [{ text: deferred('alpha_save') }],
      });
      expect(alpha.fixture.calls).toHaveLength(calls);
      await searcher.callTool({
        name: 'tool_search',
        arguments: { query: 'select:alpha_get-time,alpha_save' },
      });
      const called = await searcher.callTool({ name: hashed('Alpha', 'save'), arguments: {} });
      expect(called.structuredContent).toMatchObject({ upstream: 'alpha', tool: 'save' });
    });

    it('reach an app-only tool outside the server, and no model-visible one', async () => {
      const server = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({
            name: 'Deferred app alone',
            toolIds: [tool('Alpha', 'get-time').id],
            toolSearch: { enabled: true, alwaysLoaded: [] },
          })
          .expect(201)
      ).body;
      const alone = await connect({
        token: await serverToken(t, server.id),
        path: `/servers/${server.id}/mcp`,
      });
      const page = await read(alone, uriOf('Alpha', 'get-time'));
      expect(new Map(bridgeTable(page.text))).toEqual(
        new Map([
          ['get-time', tool('Alpha', 'get-time').toolHash],
          ['refresh', tool('Alpha', 'refresh').toolHash],
        ]),
      );
      const refreshed = await alone.callTool({ name: hashed('Alpha', 'refresh'), arguments: {} });
      expect(refreshed.structuredContent).toEqual({ upstream: 'alpha', tool: 'refresh' });
      // alpha's save is model-visible and no tool of this server: no search can promote it.
      const calls = alpha.fixture.calls.length;
      await expect(
        alone.callTool({ name: hashed('Alpha', 'save'), arguments: {} }),
      ).rejects.toThrow('Unknown tool');
      expect(alpha.fixture.calls).toHaveLength(calls);
    });
  });

  it('reaches a tool added upstream by hash and by URI right after the sync', async () => {
    alpha.fixture.setTool({
      definition: {
        name: 'export',
        description: 'Export',
        inputSchema: { type: 'object', properties: {} },
        _meta: { ui: { resourceUri: 'ui://get-time/mcp-app.html', visibility: ['app'] } },
      },
      handler: () => ({
        content: [{ type: 'text', text: 'exported' }],
        structuredContent: { ok: 1 },
      }),
    });
    const session = await connect({ token: t.token });
    await session.listTools();
    const report = await t.api().post(`/api/v1/gateways/${gateways.Alpha!.id}/sync`).expect(200);
    expect(report.body.added).toEqual(['export']);
    gateways.Alpha!.tools = await toolsOf(gateways.Alpha!.id);

    const result = await session.callTool({ name: hashed('Alpha', 'export'), arguments: {} });
    expect(result.structuredContent).toEqual({ ok: 1 });
    const page = await read(session, uriOf('Alpha', 'export'));
    expect(new Map(bridgeTable(page.text)).get('export')).toBe(tool('Alpha', 'export').toolHash);
    await eventually(async () => {
      const { resources } = await session.listResources();
      expect(resources.map((resource) => resource.uri)).toContain(uriOf('Alpha', 'export'));
    });
  });

  it('drops the UI of a tool the upstream removed from resources/list after the sync', async () => {
    const uris = async () => (await all.listResources()).resources.map((resource) => resource.uri);
    expect(await uris()).toContain(uriOf('Alpha', 'export'));
    alpha.fixture.removeTool('export');
    const report = await t.api().post(`/api/v1/gateways/${gateways.Alpha!.id}/sync`).expect(200);
    expect(report.body.removed).toEqual(['export']);
    await eventually(async () => expect(await uris()).not.toContain(uriOf('Alpha', 'export')));
    const fresh = await connect({ token: t.token });
    expect((await fresh.listResources()).resources.map((resource) => resource.uri)).not.toContain(
      uriOf('Alpha', 'export'),
    );
  });

  it('does not serve the UI of a tool a deny policy hides from the caller', async () => {
    const uri = uriOf('Beta', 'get-time');
    const uris = async () => (await all.listResources()).resources.map((resource) => resource.uri);
    const deny = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'hide-beta-time',
        expression: `tool.id == "${tool('Beta', 'get-time').id}"`,
        effect: 'deny',
      })
      .expect(201);
    try {
      await eventually(async () => {
        expect(await uris()).not.toContain(uri);
        await expect(all.readResource({ uri })).rejects.toThrow('Resource not found');
      });
    } finally {
      await t.api().delete(`/api/v1/policies/${deny.body.id}`).expect(204);
    }
    await eventually(async () =>
      expect((await all.readResource({ uri })).contents).toHaveLength(1),
    );
  });

  it('stops serving a disabled tool’s UI and hashed name', async () => {
    const betaTime = tool('Beta', 'get-time');
    const uris = async () => (await all.listResources()).resources.map((resource) => resource.uri);
    expect(await uris()).toContain(uriOf('Beta', 'get-time'));
    await t.api().patch(`/api/v1/tools/${betaTime.id}`).send({ enabled: false }).expect(200);
    await eventually(async () => {
      expect(await uris()).not.toContain(uriOf('Beta', 'get-time'));
      await expect(all.readResource({ uri: uriOf('Beta', 'get-time') })).rejects.toThrow(
        'Resource not found',
      );
      await expect(all.callTool({ name: hashed('Beta', 'get-time') })).rejects.toThrow(
        'Unknown tool',
      );
    });
  });

  describe('app config over REST', () => {
    it.each([
      [{ csp: { connectDomains: ['*'] } }, 'appConfig.csp.connectDomains'],
      [{ csp: { connectDomains: ['https://*.example.com'] } }, 'appConfig.csp.connectDomains'],
      [{ csp: { resourceDomains: ['http://cdn.example.com'] } }, 'appConfig.csp.resourceDomains'],
      [{ csp: { frameDomains: ['https://example.com/path'] } }, 'appConfig.csp.frameDomains'],
      [{ csp: { baseUriDomains: 'https://example.com' } }, 'appConfig.csp.baseUriDomains'],
      [{ csp: { scriptDomains: ['https://example.com'] } }, 'appConfig.csp.scriptDomains'],
      [{ permissions: { camera: { always: true } } }, 'appConfig.permissions.camera'],
      [{ permissions: { usb: {} } }, 'appConfig.permissions.usb'],
      [{ prefab: 'yes' }, 'appConfig.prefab'],
      [{ prefersBorder: 1 }, 'appConfig.prefersBorder'],
    ])('refuses %j', async (appConfig, field) => {
      const { body } = await t
        .api()
        .patch(`/api/v1/tools/${tool('deadbeefcafe', 'save').id}`)
        .send({ appConfig })
        .expect(422);
      expect(body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });

    it('stores and returns valid settings', async () => {
      const appConfig = {
        prefab: false,
        csp: {
          connectDomains: ['https://api.example.com', 'http://localhost:8080'],
          resourceDomains: [],
        },
        permissions: { microphone: {}, geolocation: {} },
        prefersBorder: true,
      };
      const { body } = await t
        .api()
        .patch(`/api/v1/tools/${tool('deadbeefcafe', 'save').id}`)
        .send({ appConfig })
        .expect(200);
      expect(body.appConfig).toEqual(appConfig);
      expect(body.meta).toBeNull();
    });

    it('documents the settings in the OpenAPI document', async () => {
      const { body } = await t.api().get('/api/openapi.json').expect(200);
      const schemas = body.components.schemas;
      expect(Object.keys(schemas.ToolAppConfigDto.properties)).toEqual([
        'prefab',
        'csp',
        'permissions',
        'prefersBorder',
      ]);
      expect(Object.keys(schemas.ToolAppCspDto.properties)).toEqual([
        'connectDomains',
        'resourceDomains',
        'frameDomains',
        'baseUriDomains',
      ]);
      expect(Object.keys(schemas.ToolAppPermissionsDto.properties)).toEqual([
        'camera',
        'microphone',
        'geolocation',
        'clipboardWrite',
      ]);
    });
  });

  it('syncs the UI of an upstream that offers it only to clients declaring the extension', async () => {
    gated = await startAppUpstream({
      label: 'gated',
      html: '<!doctype html><html><body>gated app</body></html>',
      uiOnlyForUiClients: true,
    });
    await register('Gated', gated.fixture.url);
    expect(gated.clientCapabilities).toContainEqual({
      extensions: { [UI]: { mimeTypes: [APP_MIME] } },
    });
    expect(tool('Gated', 'get-time').meta).toEqual({
      ui: { resourceUri: uriOf('Gated', 'get-time') },
      'ui/resourceUri': uriOf('Gated', 'get-time'),
    });
    await eventually(async () => {
      const names = (await all.listTools()).tools.map((listed) => listed.name);
      expect(names).toContain(hashed('Gated', 'refresh'));
      expect(names).not.toContain('gated_refresh');
      const { resources } = await all.listResources();
      expect(resources.map((resource) => resource.uri)).toContain(uriOf('Gated', 'get-time'));
    });
    expect((await read(all, uriOf('Gated', 'get-time'))).text).toContain('gated app');
  });
});
