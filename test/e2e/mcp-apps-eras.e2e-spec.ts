import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { type Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { localhostHostValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type {
  getUiCapability,
  registerAppResource,
  registerAppTool,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/server' with { 'resolution-mode': 'import' };
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

const MODERN = '2026-07-28';
const UI = 'io.modelcontextprotocol/ui';
const APP_MIME = 'text/html;profile=mcp-app';
const APP_URI = 'ui://clock/mcp-app.html';
const APP_HTML =
  '<!doctype html><html><head><title>Clock</title></head><body>clock app</body></html>';
/** What a client that can show MCP Apps declares (the ext-apps host's capability). */
const UI_CAPABILITIES = { extensions: { [UI]: { mimeTypes: [APP_MIME] } } };

/** ext-apps' server helpers; an ES module, loaded with import(). */
interface ExtApps {
  getUiCapability: typeof getUiCapability;
  registerAppTool: typeof registerAppTool;
  registerAppResource: typeof registerAppResource;
  RESOURCE_MIME_TYPE: typeof RESOURCE_MIME_TYPE;
}

/** The answer of a tool that has a UI: which variant the request's declaration earned. */
async function answerFor(
  capabilities: ClientCapabilities | undefined,
  label: string,
): Promise<{
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
}> {
  const { getUiCapability, RESOURCE_MIME_TYPE }: ExtApps =
    await import('@modelcontextprotocol/ext-apps/server');
  const ui = getUiCapability(capabilities)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
  return {
    content: [{ type: 'text', text: `${label}:${ui ? 'ui' : 'text'}` }],
    structuredContent: { upstream: label, ui },
  };
}

interface ModernAppUpstream {
  url: string;
  /** The client capabilities each tools/call stated, in order. */
  seen: ClientCapabilities[];
  close(): Promise<void>;
}

/**
 * A 2026-07-28-only MCP Apps server on SDK v2, built with ext-apps' own helpers: tool `clock`
 * with its UI at `ui://clock/mcp-app.html`. The tool answers by what THIS request's envelope
 * declares, as a modern server must (there is no initialize to remember).
 */
async function startModernAppUpstream(): Promise<ModernAppUpstream> {
  const { registerAppResource, registerAppTool }: ExtApps =
    await import('@modelcontextprotocol/ext-apps/server');
  const seen: ClientCapabilities[] = [];
  const build = () => {
    const server = new McpServer({ name: 'modern-app', version: '1.0.0' });
    // ext-apps types the SDK as an ES module, this file as CommonJS: the same class twice.
    const apps = server as unknown as Parameters<typeof registerAppTool>[0] &
      Parameters<typeof registerAppResource>[0];
    registerAppTool(
      apps,
      'clock',
      { description: 'The time, with a clock UI', _meta: { ui: { resourceUri: APP_URI } } },
      (ctx: ServerContext) => {
        const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
        const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities;
        seen.push(declared);
        return answerFor(declared, 'modern');
      },
    );
    registerAppResource(apps, 'clock', APP_URI, {}, () => ({
      contents: [{ uri: APP_URI, mimeType: APP_MIME, text: APP_HTML }],
    }));
    return server;
  };
  const handler = createMcpHandler(build, { legacy: 'reject' });
  const serve = toNodeHandler(handler);
  const validHost = localhostHostValidation();
  const http = createServer((req, res) => {
    if (validHost(req, res)) void serve(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    seen,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

interface LegacyAppUpstream {
  fixture: UpstreamFixture;
  /** Each tools/call: the upstream session it came on, and the variant it answered. */
  answered: { sessionId: string | undefined; text: string }[];
}

/**
 * A 2025 MCP Apps server on SDK v1: the same `clock`, answering by the capabilities its session
 * was initialized with, which are all a 2025 server knows of its client.
 */
async function startLegacyAppUpstream(): Promise<LegacyAppUpstream> {
  const answered: LegacyAppUpstream['answered'] = [];
  const fixture = await startUpstream({
    name: 'legacy-app',
    tools: [
      {
        definition: {
          name: 'clock',
          description: 'The time, with a clock UI',
          inputSchema: { type: 'object', properties: {} },
          _meta: { ui: { resourceUri: APP_URI } },
        },
        handler: async (_args, extra, server) => {
          const declared = server.getClientCapabilities() as ClientCapabilities | undefined;
          const answer = await answerFor(declared, 'legacy');
          answered.push({ sessionId: extra.sessionId, text: answer.content[0]!.text });
          return answer;
        },
      },
    ],
  });
  return { fixture, answered };
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

describe('MCP Apps negotiated per request, on both eras', () => {
  let t: TestApp;
  let modern: ModernAppUpstream;
  let legacy: LegacyAppUpstream;
  const clients: (Client | LegacyClient)[] = [];
  const tools = {} as Record<'modern' | 'legacy', { id: string; name: string; toolHash: string }>;

  /** A 2026-07-28 client (SDK v2, pinned) that declares these capabilities on every request. */
  const connectModern = async (capabilities: ClientCapabilities, path = '/mcp') => {
    const client = new Client(
      { name: 'modern-host', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } }, capabilities },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(path, t.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${t.token}` } },
      }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    clients.push(client);
    return client;
  };

  const connectLegacy = async (capabilities: ClientCapabilities) => {
    const client = await connectClient(t.baseUrl, { token: t.token, capabilities });
    clients.push(client);
    return client;
  };

  const register = async (name: string, url: string) => {
    const gateway = await t.api().post('/api/v1/gateways').send({ name, url }).expect(201);
    expect(gateway.body.status).toBe('healthy');
    const listed = await t.api().get('/api/v1/tools').query({ gatewayId: gateway.body.id });
    const clock = (
      listed.body.items as { id: string; name: string; originalName: string; toolHash: string }[]
    ).find((tool) => tool.originalName === 'clock')!;
    return { id: clock.id, name: clock.name, toolHash: clock.toolHash };
  };

  beforeAll(async () => {
    t = await startTestApp();
    modern = await startModernAppUpstream();
    legacy = await startLegacyAppUpstream();
    tools.modern = await register('Modern apps', modern.url);
    tools.legacy = await register('Legacy apps', legacy.fixture.url);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await t.close();
    await modern.close();
    await legacy.fixture.close();
  });

  describe('a 2026-07-28 upstream', () => {
    it('advertises the UI extension in server/discover for a scope with a UI, not for one without', async () => {
      const withUi = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'With a UI', toolIds: [tools.modern.id] })
        .expect(201);
      const scoped = await connectModern(UI_CAPABILITIES, `/servers/${withUi.body.id}/mcp`);
      expect(scoped.getDiscoverResult()?.capabilities.extensions).toEqual({
        [UI]: { mimeTypes: [APP_MIME] },
      });
      const empty = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Without a UI', toolIds: [] })
        .expect(201);
      const bare = await connectModern(UI_CAPABILITIES, `/servers/${empty.body.id}/mcp`);
      expect(bare.getDiscoverResult()?.capabilities.extensions?.[UI]).toBeUndefined();
    });

    it("keeps the tool's _meta.ui, pointing at its per-tool UI, which reads with the MCP Apps MIME type", async () => {
      const client = await connectModern(UI_CAPABILITIES);
      const served = `ui://prefab/tool/${tools.modern.toolHash}/renderer.html`;
      const { tools: listed } = await client.listTools();
      const clock = listed.find((tool) => tool.name === tools.modern.name);
      expect(clock?._meta).toMatchObject({
        ui: { resourceUri: served },
        // ext-apps' registerAppTool adds the deprecated flat key; it names the same resource.
        'ui/resourceUri': served,
      });
      const { resources } = await client.listResources();
      expect(resources).toContainEqual(
        expect.objectContaining({ uri: served, mimeType: APP_MIME }),
      );
      const { contents } = await client.readResource({ uri: served });
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({ uri: served, mimeType: APP_MIME });
      expect((contents[0] as { text: string }).text).toContain('<body>clock app</body>');
    });

    it('answers each request by what that request declared, clients interleaved', async () => {
      const host = await connectModern(UI_CAPABILITIES);
      const plain = await connectModern({});
      const call = (client: Client) => client.callTool({ name: tools.modern.name, arguments: {} });
      modern.seen.length = 0;
      const answers = await Promise.all([call(host), call(plain), call(host), call(plain)]);
      expect(answers.map(textOf)).toEqual(['modern:ui', 'modern:text', 'modern:ui', 'modern:text']);
      // What went upstream: the extension exactly as declared, and nothing for the plain client.
      expect(modern.seen.filter((seen) => seen.extensions?.[UI] !== undefined)).toEqual([
        UI_CAPABILITIES,
        UI_CAPABILITIES,
      ]);
      expect(modern.seen.filter((seen) => seen.extensions === undefined)).toHaveLength(2);
    });

    it("follows one client's declaration from request to request", async () => {
      const client = await connectModern({});
      const call = (capabilities?: ClientCapabilities) =>
        client.callTool({
          name: tools.modern.name,
          arguments: {},
          // A _meta of the caller's own takes precedence over the SDK's envelope keys.
          ...(capabilities ? { _meta: { [CLIENT_CAPABILITIES_META_KEY]: capabilities } } : {}),
        });
      expect(textOf(await call())).toBe('modern:text');
      expect(textOf(await call(UI_CAPABILITIES))).toBe('modern:ui');
      expect(textOf(await call())).toBe('modern:text');
    });

    it('answers a 2025 client by what it declared at initialize, restated upstream on each request', async () => {
      const host = await connectLegacy(UI_CAPABILITIES);
      const plain = await connectLegacy({});
      const call = (client: LegacyClient) =>
        client.callTool({ name: tools.modern.name, arguments: {} });
      const answers = await Promise.all([call(host), call(plain), call(host), call(plain)]);
      expect(answers.map(textOf)).toEqual(['modern:ui', 'modern:text', 'modern:ui', 'modern:text']);
      // A 2025 request has no capabilities of its own: keys of the modern envelope in its _meta
      // change nothing, whichever way they point.
      const claiming = (client: LegacyClient, capabilities: ClientCapabilities) =>
        client.callTool({
          name: tools.modern.name,
          arguments: {},
          _meta: { [CLIENT_CAPABILITIES_META_KEY]: capabilities },
        });
      expect(textOf(await claiming(plain, UI_CAPABILITIES))).toBe('modern:text');
      expect(textOf(await claiming(host, {}))).toBe('modern:ui');
      // The 2025 client reads the same UI resource, with its MIME type.
      const served = `ui://prefab/tool/${tools.modern.toolHash}/renderer.html`;
      const { contents } = await host.readResource({ uri: served });
      expect(contents[0]).toMatchObject({ uri: served, mimeType: APP_MIME });
    });
  });

  describe('a 2025 upstream, whose capabilities are fixed at initialize', () => {
    it('answers 2026-07-28 clients each by their own declaration, on one upstream session per declaration', async () => {
      const host = await connectModern(UI_CAPABILITIES);
      const plain = await connectModern({});
      const call = (client: Client) => client.callTool({ name: tools.legacy.name, arguments: {} });
      legacy.answered.length = 0;
      const answers = await Promise.all([
        call(host),
        call(plain),
        call(plain),
        call(host),
        call(host),
        call(plain),
      ]);
      expect(answers.map(textOf)).toEqual([
        'legacy:ui',
        'legacy:text',
        'legacy:text',
        'legacy:ui',
        'legacy:ui',
        'legacy:text',
      ]);
      // One upstream session per declaration, each answering only its own.
      const sessionsOf = (text: string) =>
        new Set(legacy.answered.filter((call) => call.text === text).map((call) => call.sessionId));
      const [ui, plainSessions] = [sessionsOf('legacy:ui'), sessionsOf('legacy:text')];
      expect(ui.size).toBe(1);
      expect(plainSessions.size).toBe(1);
      expect([...ui][0]).not.toBe([...plainSessions][0]);
      // A later client that declares the same shares the session the first one opened.
      const another = await connectModern(UI_CAPABILITIES);
      expect(textOf(await call(another))).toBe('legacy:ui');
      expect(sessionsOf('legacy:ui')).toEqual(ui);
    });
  });
});
