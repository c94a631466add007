import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/client';
import { join } from 'node:path';
import { startFutureOnlyServer } from '../fixtures/future-only-server';
import { startRecordingServer } from '../fixtures/recording-server';
import { type InitializeRefusal, startModernOnlyServer } from '../fixtures/modern-only-server';
import {
  type ModernEverythingServer,
  startModernEverythingServer,
} from '../fixtures/modern-everything-server';
import { echoTool, startUpstream } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { modernClient, rawCall, rawListen } from '../support/modern-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { loginAgent } from '../support/admin-browser-session';
import { textOf } from '../support/html-text';

const MODERN_STDIO = join(__dirname, '..', 'fixtures', 'modern-stdio-server.mjs');

interface GatewayJson {
  id: string;
  status: string;
  lastError: string | null;
  lastSyncAt: string | null;
  protocol: {
    era: string;
    version: string | null;
    supportedVersions: string[];
    checkedAt: string;
  } | null;
}

const text = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

describe('upstreams of both eras', () => {
  let t: TestApp;
  const clients: Client[] = [];
  const closers: (() => Promise<void>)[] = [];

  const gatewayOf = async (id: string): Promise<GatewayJson> =>
    (await t.api().get(`/api/v1/gateways/${id}`).expect(200)).body as GatewayJson;

  const register = async (gateway: Record<string, unknown>): Promise<GatewayJson> =>
    (await t.api().post('/api/v1/gateways').send(gateway).expect(201)).body as GatewayJson;

  const toolsOf = async (gatewayId: string): Promise<Map<string, string>> => {
    const listed = await t.api().get('/api/v1/tools').query({ gatewayId }).expect(200);
    return new Map(
      listed.body.items.map((tool: { originalName: string; name: string }) => [
        tool.originalName,
        tool.name,
      ]),
    );
  };

  const toolId = async (gatewayId: string, originalName: string): Promise<string> => {
    const tools = await t.api().get('/api/v1/tools').query({ gatewayId });
    return (tools.body.items as { id: string; originalName: string }[]).find(
      (tool) => tool.originalName === originalName,
    )!.id;
  };

  const connect = async (
    path = '/mcp',
    token = t.token,
    capabilities: Parameters<typeof connectClient>[1]['capabilities'] = {},
  ) => {
    const client = await connectClient(t.baseUrl, { token, path, capabilities });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { STDIO_COMMANDS: 'node', SYNC_INTERVAL_SECONDS: '0' } });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await t.close();
    await Promise.all(closers.map((close) => close().catch(() => undefined)));
  });

  describe('a 2026-07-28-only upstream over HTTP', () => {
    let upstream: ModernEverythingServer;
    let gateway: GatewayJson;
    let names: Map<string, string>;

    beforeAll(async () => {
      upstream = await startModernEverythingServer({ legacy: 'reject' });
      closers.push(() => upstream.close());
      gateway = await register({ name: 'Modern', url: upstream.url });
      names = await toolsOf(gateway.id);
    });

    it('registers healthy, era modern, with its tools, resources and prompts synced', async () => {
      const stored = await gatewayOf(gateway.id);
      expect(stored).toMatchObject({
        status: 'healthy',
        lastError: null,
        protocol: { era: '2026-07-28', version: '2026-07-28' },
      });
      expect(stored.protocol?.supportedVersions).toContain('2026-07-28');
      expect(names.has('test_simple_text')).toBe(true);
      expect(names.has('test_tool_with_progress')).toBe(true);
      const resources = await t.api().get('/api/v1/resources').query({ gatewayId: gateway.id });
      expect(JSON.stringify(resources.body)).toContain('test://static-text');
      const prompts = await t.api().get('/api/v1/prompts').query({ gatewayId: gateway.id });
      expect(JSON.stringify(prompts.body)).toContain('test_simple_prompt');
      // A manual sync works too: 200, not 502.
      await t.api().post(`/api/v1/gateways/${gateway.id}/sync`).expect(200);
    });

    it('serves its tools to a 2025 client, progress included, on /mcp and a virtual server', async () => {
      const client = await connect();
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toContain(names.get('test_simple_text'));
      const simple = await client.callTool({ name: names.get('test_simple_text')!, arguments: {} });
      expect(text(simple)).toBe('This is a simple text response for testing.');
      // In 2025's words: no resultType, and the server that answered is Portico, not the upstream.
      expect(simple).not.toHaveProperty('resultType');
      expect(simple._meta).toEqual({
        'io.modelcontextprotocol/serverInfo': { name: 'Portico', version: '1.0.0' },
      });
      // Mcp-Param-* headers mirrored from the arguments: the SDK server checks them.
      const headers = await client.callTool({
        name: names.get('test_custom_headers')!,
        arguments: { region: 'eu west ✓', priority: 3 },
      });
      expect(text(headers)).toBe('region=eu west ✓ priority=3');

      const progress: number[] = [];
      const done = await client.callTool(
        { name: names.get('test_tool_with_progress')!, arguments: {} },
        undefined,
        { onprogress: ({ progress: value }) => progress.push(value) },
      );
      expect(text(done)).toBe('Progress tool completed');
      expect(progress).toEqual([0, 50, 100]);

      const tools = await t.api().get('/api/v1/tools').query({ gatewayId: gateway.id });
      const simpleId = (tools.body.items as { id: string; originalName: string }[]).find(
        (tool) => tool.originalName === 'test_simple_text',
      )!.id;
      const server = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Modern only', toolIds: [simpleId] })
      ).body as { id: string };
      const token = (await t.api().post(`/api/v1/servers/${server.id}/tokens`).send({}).expect(201))
        .body.accessToken as string;
      const scoped = await connect(`/servers/${server.id}/mcp`, token);
      const scopedTools = await scoped.listTools();
      expect(scopedTools.tools).toHaveLength(1);
      const viaServer = await scoped.callTool({ name: scopedTools.tools[0]!.name, arguments: {} });
      expect(text(viaServer)).toBe('This is a simple text response for testing.');
      expect(viaServer._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({
        name: 'Portico: Modern only',
        version: '1.0.0',
      });
    });

    it("asks a 2025 session's client what the upstream's round needs", async () => {
      const call = (client: Client) =>
        client.callTool({ name: names.get('test_elicitation')!, arguments: { message: 'who?' } });
      // The client's capabilities go upstream: one that cannot elicit is refused there.
      await expect(call(await connect())).rejects.toMatchObject({ code: -32021 });
      const eliciting = await connect('/mcp', t.token, { elicitation: {} });
      const shown: string[] = [];
      eliciting.setRequestHandler(ElicitRequestSchema, (request) => {
        shown.push(request.params.message);
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      });
      const result = (await call(eliciting)) as CallToolResult;
      expect(shown).toEqual(['who?']);
      expect(result.content[0]).toMatchObject({
        text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
      });
    });

    it('answers a REST invoke of a tool that asks for input with 502, in the upstream’s words', async () => {
      const id = await toolId(gateway.id, 'test_input_required_result_elicitation');
      const response = await t
        .api()
        .post(`/api/v1/tools/${id}/invoke`)
        .send({ arguments: {} })
        .expect(502);
      // REST states no client capabilities: the upstream refuses to ask, and says why.
      expect(response.body.code).toBe('tool.upstream_failing');
      expect(response.body.detail).toContain(
        "-32021 Cannot request input 'user_name' (elicitation/create): the request's client capabilities do not declare the required capability",
      );
    });

    it('syncs when the upstream announces a change on the watch’s listen, and passes it on to listens of both eras', async () => {
      const before = (await gatewayOf(gateway.id)).lastSyncAt;
      const { response, reader } = await rawListen(t.baseUrl, t.token, {
        toolsListChanged: true,
        promptsListChanged: true,
      });
      closers.push(async () => reader.drop());
      expect(response.status).toBe(200);
      expect((await reader.nextMessage())?.message.method).toBe(
        'notifications/subscriptions/acknowledged',
      );
      const session = await connect();
      await session.listTools();
      const heard: string[] = [];
      session.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard.push('tools');
      });
      // Let the watch's listen be acknowledged before the change is announced.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The fixture says its lists changed without changing them: the sync finds nothing new,
      // and the upstream's word reaches Portico's clients all the same, within a second.
      for (const [tool, list] of [
        ['test_trigger_tool_change', 'tools'],
        ['test_trigger_prompt_change', 'prompts'],
      ]) {
        const trigger = await toolId(gateway.id, tool!);
        const said = Date.now();
        await t.api().post(`/api/v1/tools/${trigger}/invoke`).send({ arguments: {} }).expect(200);
        expect((await reader.nextMessage(3000))?.message.method).toBe(
          `notifications/${list}/list_changed`,
        );
        expect(Date.now() - said).toBeLessThan(1500);
      }
      await waitFor(() => heard.length === 1, 'the 2025 session to hear of the tools');
      await waitFor(
        async () => (await gatewayOf(gateway.id)).lastSyncAt !== before,
        'the announced change to be synced',
      );
    });
  });

  it('runs a 2026-07-28-only stdio server: healthy, era modern, calls with progress', async () => {
    const created = await register({
      name: 'Modern stdio',
      transport: 'stdio',
      command: 'node',
      args: [MODERN_STDIO],
    });
    await waitFor(
      async () => (await gatewayOf(created.id)).status === 'healthy',
      'the stdio gateway to sync',
    );
    expect((await gatewayOf(created.id)).protocol).toMatchObject({ era: '2026-07-28' });
    const names = await toolsOf(created.id);
    const client = await connect();
    const echoed = await client.callTool({
      name: names.get('echo')!,
      arguments: { message: 'over modern stdio' },
    });
    expect(text(echoed)).toBe('Echo: over modern stdio');
    const progress: number[] = [];
    const done = await client.callTool({ name: names.get('progress')!, arguments: {} }, undefined, {
      onprogress: ({ progress: value }) => progress.push(value),
    });
    expect(text(done)).toBe('Progress done');
    expect(progress).toEqual([0, 50, 100]);
  });

  it('serves 2025 sessions on 2025 sessions of a dual-era upstream: its elicitation passes through', async () => {
    const upstream = await startModernEverythingServer({ legacy: 'serve' });
    closers.push(() => upstream.close());
    const created = await register({ name: 'Dual', url: upstream.url });
    expect(await gatewayOf(created.id)).toMatchObject({
      status: 'healthy',
      protocol: { era: '2026-07-28' },
    });
    const names = await toolsOf(created.id);
    const client = await connect('/mcp', t.token, { elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    const answered = await client.callTool({
      name: names.get('test_elicitation')!,
      arguments: { message: 'Who are you?' },
    });
    expect(asked).toEqual(['Who are you?']);
    expect(text(answered)).toBe(
      'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
    );
  });

  it.each<InitializeRefusal>(['method-not-found', 'http-404', 'http-405'])(
    'serves 2025 clients of a 2026-07-28-only upstream that refuses initialize its own way (%s): asked once',
    async (refusal) => {
      const upstream = await startModernOnlyServer(refusal);
      closers.push(() => upstream.close());
      const created = await register({ name: `Bare ${refusal}`, url: upstream.url });
      expect(await gatewayOf(created.id)).toMatchObject({ protocol: { era: '2026-07-28' } });
      const names = await toolsOf(created.id);
      for (const message of ['one', 'two']) {
        const client = await connect();
        const echoed = await client.callTool({ name: names.get('echo')!, arguments: { message } });
        expect(text(echoed)).toBe(`echo: ${message}`);
      }
      // The refusal is remembered: one initialize, then the modern wire for every session.
      expect(upstream.methods.filter((method) => method === 'initialize')).toHaveLength(1);
      expect(upstream.methods.filter((method) => method === 'tools/call')).toHaveLength(2);
    },
  );

  it('takes a 429 as "not now": it decides no era, and a refused initialize is asked again', async () => {
    const busy = new Set(['server/discover']);
    const upstream = await startModernOnlyServer('method-not-found', busy);
    closers.push(() => upstream.close());
    const created = await register({ name: 'Busy', url: upstream.url });
    let stored = await gatewayOf(created.id);
    expect(stored.protocol?.era).not.toBe('2025');
    expect(stored.lastError).toContain('429');
    busy.clear();
    await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200);
    stored = await gatewayOf(created.id);
    expect(stored).toMatchObject({ status: 'healthy', protocol: { era: '2026-07-28' } });
    const names = await toolsOf(created.id);
    // A busy initialize: this session is served by translation, and the next asks again.
    busy.add('initialize');
    for (const message of ['one', 'two']) {
      const client = await connect();
      const echoed = await client.callTool({ name: names.get('echo')!, arguments: { message } });
      expect(text(echoed)).toBe(`echo: ${message}`);
      busy.clear();
    }
    expect(upstream.methods.filter((method) => method === 'initialize')).toHaveLength(2);
    expect(upstream.methods.filter((method) => method === 'tools/call')).toHaveLength(2);
  });

  it("passes an upstream's 429 Retry-After on to every client, saying when to try again", async () => {
    const busyMethods = new Set(['tools/call']);
    const upstream = await startModernOnlyServer('method-not-found', busyMethods);
    closers.push(() => upstream.close());
    const created = await register({ name: 'Throttled', url: upstream.url });
    const name = (await toolsOf(created.id)).get('echo')!;
    const busy = {
      code: -32010,
      message: "Upstream 'throttled' answered with an error: HTTP 429: Too Many Requests",
      data: {
        gateway: 'throttled',
        status: 429,
        retryAfterSeconds: 1,
        retryAt: expect.any(String),
      },
    };
    const modern = await rawCall(t, 'busy', { name, arguments: { message: 'm' } });
    expect(modern.body.error).toEqual(busy);
    const session = await connect();
    const refused = await session
      .callTool({ name, arguments: {} })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: busy.code, data: busy.data });
    const invoked = await t
      .api()
      .post(`/api/v1/tools/${await toolId(created.id, 'echo')}/invoke`)
      .send({ arguments: {} })
      .expect(502);
    expect(invoked.headers['retry-after']).toBe('1');
    expect(invoked.body).toMatchObject({ retryAfterSeconds: 1 });
    busyMethods.add('tools/list');
    const synced = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
    expect(synced.headers['retry-after']).toBe('1');
    expect((await toolsOf(created.id)).has('echo')).toBe(true);
    busyMethods.clear();
    // The upstream is there and answering: its breaker counted none of the 429s.
    await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200);
    expect(await gatewayOf(created.id)).toMatchObject({
      status: 'healthy',
      circuit: { state: 'closed', failures: 0 },
    });
  });

  it.each(['ends with its result', 'drops once acknowledged'])(
    'listens again, later each time, to an upstream whose every listen %s at once; its calls go on',
    async (how) => {
      const upstream = await startRecordingServer((message, res) => {
        if (!('id' in message)) return void res.writeHead(202).end();
        if (message.method === 'subscriptions/listen' && how !== 'ends with its result') {
          const ack = {
            jsonrpc: '2.0',
            method: 'notifications/subscriptions/acknowledged',
            params: { notifications: {}, _meta: { [SUBSCRIPTION_ID_META_KEY]: message.id } },
          };
          return void res
            .writeHead(200, { 'content-type': 'text/event-stream' })
            .end(`data: ${JSON.stringify(ack)}\n\n`);
        }
        const result: Record<string, Record<string, unknown>> = {
          'server/discover': {
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: 'brief', version: '1.0.0' },
          },
          'tools/list': { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
          'tools/call': { content: [{ type: 'text', text: 'fine' }] },
          'subscriptions/listen': {},
        };
        const answer = result[String(message.method)];
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            ...(answer
              ? { result: { resultType: 'complete', ...answer } }
              : { error: { code: -32601, message: 'Method not found' } }),
          }),
        );
      });
      closers.push(() => upstream.close());
      const created = await register({ name: `Brief ${how}`, url: upstream.url });
      const name = (await toolsOf(created.id)).get('echo')!;
      for (let call = 0; call < 3; call++) {
        const client = await connect();
        expect(text(await client.callTool({ name, arguments: {} }))).toBe('fine');
      }
      const listens = () => upstream.methods.filter((method) => method === 'subscriptions/listen');
      const before = listens().length;
      await new Promise((resolve) => setTimeout(resolve, 1600));
      // Each connection waits 0.5 s, 1 s, 2 s, … between listens: a few, not a loop.
      expect(listens().length - before).toBeLessThan(12);
    },
  );

  it('syncs what changed upstream while no listen was open, once it listens again', async () => {
    const tools = [{ name: 'first', inputSchema: { type: 'object' } }];
    let listens = 0;
    const upstream = await startRecordingServer((message, res) => {
      if (!('id' in message)) return void res.writeHead(202).end();
      const reply = (result: Record<string, unknown>) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { resultType: 'complete', ...result },
        });
      if (message.method === 'subscriptions/listen') {
        listens += 1;
        const ack = {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            notifications: message.params?.notifications,
            _meta: { [SUBSCRIPTION_ID_META_KEY]: message.id },
          },
        };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(ack)}\n\n`);
        if (listens > 1) return void setTimeout(() => res.end(), 10_000);
        // The watch's first listen ends; the tool arrives before the next one opens, unannounced.
        return void setTimeout(() => {
          tools.push({ name: 'second', inputSchema: { type: 'object' } });
          res.end(`data: ${reply({})}\n\n`);
        }, 200);
      }
      const results: Record<string, Record<string, unknown>> = {
        'server/discover': {
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'cycling', version: '1.0.0' },
        },
        'tools/list': { tools },
      };
      const result = results[String(message.method)];
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        result
          ? reply(result)
          : JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32601, message: 'Method not found' },
            }),
      );
    });
    closers.push(() => upstream.close());
    const created = await register({ name: 'Cycling', url: upstream.url });
    expect([...(await toolsOf(created.id)).keys()]).toEqual(['first']);
    await waitFor(async () => (await toolsOf(created.id)).has('second'), 'the missed tool');
    expect(listens).toBe(2);
  });

  it('answers an input round whose requestState it cannot carry with -32012, naming the upstream', async () => {
    const upstream = await startModernOnlyServer('method-not-found');
    closers.push(() => upstream.close());
    const created = await register({ name: 'Stateful', url: upstream.url });
    const names = await toolsOf(created.id);
    const refusals = {
      huge_state: "its input round's requestState is 70000 bytes, more than 65536",
      numeric_state: 'its input round has a requestState that is not a string',
    };
    for (const [tool, reason] of Object.entries(refusals)) {
      const modern = await rawCall(t, `s-${tool}`, { name: names.get(tool)!, arguments: {} });
      expect(modern.body.error).toEqual({
        code: -32012,
        message: `Upstream 'stateful' answered with a message Portico cannot use: ${reason}`,
      });
      const session = await connect('/mcp', t.token, { elicitation: {} });
      await expect(session.callTool({ name: names.get(tool)!, arguments: {} })).rejects.toThrow(
        `MCP error -32012: Upstream 'stateful' answered with a message Portico cannot use: ${reason}`,
      );
    }
  });

  it('relays what an upstream sends ahead of its answer in one JSON body, to clients of both eras', async () => {
    const upstream = await startModernOnlyServer('method-not-found');
    closers.push(() => upstream.close());
    const created = await register({ name: 'Progressive', url: upstream.url });
    const tool = (await toolsOf(created.id)).get('progressive')!;
    const session = await connect();
    const modern = await modernClient(t);
    closers.push(() => modern.close());
    const progress: number[] = [];
    const onprogress = ({ progress: value }: { progress: number }) => progress.push(value);
    const call = { name: tool, arguments: {} };
    expect(text(await session.callTool(call, undefined, { onprogress }))).toBe('progressed');
    expect(text(await modern.callTool(call, { onprogress }))).toBe('progressed');
    expect(progress).toEqual([50, 50]);
  });

  it('keeps a 2025 upstream on its legacy verdict, serving as before', async () => {
    const upstream = await startUpstream({ name: 'old', tools: [echoTool('old_echo', 'old')] });
    closers.push(() => upstream.close());
    const created = await register({ name: 'Old', url: upstream.url });
    const stored = await gatewayOf(created.id);
    expect(stored).toMatchObject({ status: 'healthy', protocol: { era: '2025' } });
    const names = await toolsOf(created.id);
    const client = await connect();
    const echoed = await client.callTool({ name: names.get('old_echo')!, arguments: { n: 'x' } });
    expect(JSON.stringify(echoed)).toContain('old');
  });

  it('says an upstream that speaks only a future version "speaks only", never unreachable; a sync is 422', async () => {
    const upstream = await startFutureOnlyServer('2099-01-01');
    closers.push(() => upstream.close());
    const created = await register({ name: 'Future', url: upstream.url });
    const stored = await gatewayOf(created.id);
    expect(stored.status).toBe('incompatible');
    expect(stored.lastError).toContain('speaks only 2099-01-01');
    expect(stored.protocol).toMatchObject({
      era: 'incompatible',
      version: null,
      supportedVersions: ['2099-01-01'],
    });
    const sync = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(422);
    expect(sync.body).toMatchObject({ code: 'gateway.upstream_incompatible' });
    expect(sync.body.detail).toContain('speaks only 2099-01-01');
    // The verdict holds: no second probe, and never an initialize it would refuse anyway.
    expect(upstream.methods.filter((method) => method === 'server/discover')).toHaveLength(1);
    expect(upstream.methods).not.toContain('initialize');
    // The dashboard lists it among the gateways that need an operator's look.
    const { agent } = await loginAgent(t.baseUrl);
    const dashboard = textOf((await agent.get('/admin').expect(200)).text);
    expect(dashboard).toMatch(/Unhealthy gateways[\s\S]*Future[\s\S]*incompatible/i);
  });

  describe('an era policy', () => {
    it('pins an upstream to an era, spoken without probing, and shows the last probe beside it', async () => {
      const modernOnly = await startModernEverythingServer({ legacy: 'reject' });
      const dual = await startModernEverythingServer({ legacy: 'serve' });
      closers.push(
        () => modernOnly.close(),
        () => dual.close(),
      );
      const pinned = (await register({
        name: 'Pinned modern',
        url: modernOnly.url,
        eraPin: '2025',
      })) as GatewayJson & { eraPin: string };
      // A 2025 session is all it is asked for, and it opens none: no probe ran either.
      expect(pinned).toMatchObject({ eraPin: '2025', status: 'failing', protocol: null });
      await t.api().patch(`/api/v1/gateways/${pinned.id}`).send({ eraPin: 'auto' }).expect(200);
      await waitFor(
        async () => (await gatewayOf(pinned.id)).status === 'healthy',
        'the unpinned gateway to sync',
      );
      expect(await gatewayOf(pinned.id)).toMatchObject({ protocol: { era: '2026-07-28' } });

      const created = await register({ name: 'Dual pinned', url: dual.url });
      const probed = (await gatewayOf(created.id)).protocol!;
      expect(probed.era).toBe('2026-07-28');
      const repinned = (
        await t.api().patch(`/api/v1/gateways/${created.id}`).send({ eraPin: '2025' }).expect(200)
      ).body as GatewayJson & { eraPin: string };
      // Served over 2025 sessions now; the verdict shown is still the probe's, with its time.
      expect(repinned).toMatchObject({ eraPin: '2025', status: 'healthy', protocol: probed });
      const names = await toolsOf(created.id);
      const client = await connect();
      const simple = await client.callTool({ name: names.get('test_simple_text')!, arguments: {} });
      expect(text(simple)).toBe('This is a simple text response for testing.');
      const { agent } = await loginAgent(t.baseUrl);
      const page = textOf((await agent.get(`/admin/gateways/${created.id}`).expect(200)).text);
      expect(page).toContain('Pinned 2025, spoken without probing');

      const old = await startUpstream({ name: 'old-pinned', tools: [echoTool('old_pin', 'x')] });
      closers.push(() => old.close());
      const wrong = await register({
        name: 'Old pinned modern',
        url: old.url,
        eraPin: '2026-07-28',
      });
      expect(wrong.status).not.toBe('healthy');
      expect(wrong.protocol).toBeNull();
      const refused = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'Sse pinned', url: old.url, transport: 'sse', eraPin: '2026-07-28' })
        .expect(422);
      expect(JSON.stringify(refused.body)).toContain('eraPin');
    });

    it('lets a virtual server take clients of one era, refusing the other with the versions it takes', async () => {
      const upstream = await startUpstream({
        name: 'era-server',
        tools: [echoTool('era_echo', 'x')],
      });
      closers.push(() => upstream.close());
      const gateway = await register({ name: 'Era server', url: upstream.url });
      const names = await toolsOf(gateway.id);
      const toolId = (
        await t.api().get('/api/v1/tools').query({ gatewayId: gateway.id }).expect(200)
      ).body.items[0].id as string;
      const server = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Modern clients only', toolIds: [toolId], clientEras: '2026-07-28' })
          .expect(201)
      ).body as { id: string; clientEras: string };
      expect(server.clientEras).toBe('2026-07-28');
      const path = `/servers/${server.id}/mcp`;
      const refused = await connect(path).then(
        () => null,
        (error: Error) => error,
      );
      expect(refused?.message).toMatch(/Unsupported protocol version/);
      const modern = await rawCall(
        t,
        'm1',
        { name: names.get('era_echo')!, arguments: {} },
        { path },
      );
      expect(modern.status).toBe(200);
      expect(modern.body.result).toMatchObject({ resultType: 'complete' });

      await t.api().patch(`/api/v1/servers/${server.id}`).send({ clientEras: '2025' }).expect(200);
      const later = await rawCall(
        t,
        'm2',
        { name: names.get('era_echo')!, arguments: {} },
        { path },
      );
      expect(later.status).toBe(400);
      expect(later.body.error).toMatchObject({
        code: -32022,
        data: { supported: expect.arrayContaining(['2025-11-25']), requested: '2026-07-28' },
      });
      const session = await connect(path);
      expect(
        JSON.stringify(await session.callTool({ name: names.get('era_echo')!, arguments: {} })),
      ).toContain('x');
    });
  });

  describe('with a verdict that expires within a second', () => {
    let short: TestApp;

    beforeAll(async () => {
      short = await startTestApp({
        env: { SYNC_INTERVAL_SECONDS: '0', UPSTREAM_ERA_TTL_SECONDS: '1' },
      });
    });

    afterAll(async () => {
      await short.close();
    });

    it('probes again once the verdict expires, and when an upstream turns 2026-only', async () => {
      const shortGateway = async (id: string) =>
        (await short.api().get(`/api/v1/gateways/${id}`).expect(200)).body as GatewayJson;
      const legacy = await startUpstream({ name: 'turning', tools: [echoTool('turn', 'x')] });
      const port = Number(new URL(legacy.url).port);
      const created = (
        await short
          .api()
          .post('/api/v1/gateways')
          .send({ name: 'Turning', url: legacy.url })
          .expect(201)
      ).body as GatewayJson;
      const first = (await shortGateway(created.id)).protocol!;
      expect(first.era).toBe('2025');

      await new Promise((resolve) => setTimeout(resolve, 1200));
      await short.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200);
      const reprobed = (await shortGateway(created.id)).protocol!;
      expect(reprobed.era).toBe('2025');
      expect(Date.parse(reprobed.checkedAt)).toBeGreaterThan(Date.parse(first.checkedAt));

      // Upgraded in place, within the verdict's life: initialize is refused with -32022, which
      // sends Portico to probe again at once.
      await legacy.close();
      const modern = await startModernEverythingServer({ port, legacy: 'reject' });
      closers.push(() => modern.close());
      await short.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200);
      expect(await shortGateway(created.id)).toMatchObject({
        status: 'healthy',
        protocol: { era: '2026-07-28' },
      });
    });
  });
});
