import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type CallToolResult } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import {
  type ModernEverythingServer,
  startModernEverythingServer,
} from '../fixtures/modern-everything-server';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

const MODERN = '2026-07-28';

const text = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

/** What a raw 2026-07-28 request looks like on the wire, for the checks a client never fails. */
function envelope(params: Record<string, unknown> = {}, version = MODERN) {
  return {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    },
  };
}

describe('2026-07-28 clients (stateless wire, downstream)', () => {
  let t: TestApp;
  let modern: ModernEverythingServer;
  let legacy: UpstreamFixture;
  const clients: Client[] = [];
  /** Original name to the name /mcp serves it under. */
  const names = new Map<string, string>();

  const connect = async (path = '/mcp', token = t.token) => {
    const client = new Client(
      { name: 'modern-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(path, t.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  /** A virtual server of `test_simple_text` and `echo` under their own names; its MCP path. */
  const serverWithEchoes = async (
    name: string,
    toolSearch?: { enabled: boolean; alwaysLoaded: string[] },
  ): Promise<string> => {
    const tools = await t.api().get('/api/v1/tools').query({ limit: 500 }).expect(200);
    const server = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name,
        naming: 'original',
        toolIds: (tools.body.items as { id: string; originalName: string }[])
          .filter((tool) => ['test_simple_text', 'echo'].includes(tool.originalName))
          .map((tool) => tool.id),
        ...(toolSearch ? { toolSearch } : {}),
      })
      .expect(201);
    return `/servers/${server.body.id}/mcp`;
  };

  const raw = async (
    method: string,
    params: Record<string, unknown>,
    headers: Record<string, string> = {},
    body: Record<string, unknown> = {},
  ) => {
    const response = await fetch(new URL('/mcp', t.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'r-1', method, params, ...body }),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        id: unknown;
        result: Record<string, unknown> & { ttlMs: number };
        error: { code: number };
      },
    };
  };

  beforeAll(async () => {
    t = await startTestApp();
    modern = await startModernEverythingServer({ legacy: 'reject' });
    legacy = await startUpstream({
      name: 'old',
      tools: [
        echoTool('echo', 'old'),
        {
          definition: {
            name: 'slow',
            description: 'Reports progress twice',
            inputSchema: { type: 'object', properties: {} },
          },
          handler: async (_args, extra) => {
            const progressToken = extra._meta?.progressToken;
            if (progressToken !== undefined)
              for (const progress of [1, 2])
                await extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress, total: 2 },
                });
            return { content: [{ type: 'text', text: 'slow done' }] };
          },
        },
        // A modern client would drop it: an x-mcp-header on an object is invalid.
        echoTool('badly_annotated', 'old', {
          inputSchema: {
            type: 'object',
            properties: { data: { type: 'object', 'x-mcp-header': 'Data' } },
          },
        }),
      ],
    });
    for (const [name, url] of [
      ['Modern', modern.url],
      ['Old', legacy.url],
    ] as const) {
      const gateway = await t.api().post('/api/v1/gateways').send({ name, url }).expect(201);
      expect(gateway.body.status).toBe('healthy');
      const tools = await t.api().get('/api/v1/tools').query({ gatewayId: gateway.body.id });
      for (const tool of tools.body.items as { name: string; originalName: string }[])
        names.set(tool.originalName, tool.name);
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await t.close();
    await modern.close();
    await legacy.close();
  });

  it('discovers /mcp: only 2026-07-28, its capabilities, Portico named in _meta, cache hints', async () => {
    const client = await connect();
    expect(client.getProtocolEra()).toBe('modern');
    const discovered = client.getDiscoverResult()!;
    expect(discovered.supportedVersions).toEqual([MODERN]);
    expect(discovered.capabilities.tools).toBeDefined();
    expect(discovered._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'Portico',
    });
    const { body } = await raw('server/discover', envelope());
    expect(body.id).toBe('r-1');
    expect(body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(body.result.ttlMs).toBeGreaterThan(0);
  });

  it('lists and calls tools of a 2026-07-28 upstream, progress and Mcp-Param-* included', async () => {
    const client = await connect();
    const listed = await client.listTools();
    const listedNames = listed.tools.map((tool) => tool.name);
    expect(listedNames).toContain(names.get('test_simple_text'));
    expect(listed).toMatchObject({ cacheScope: 'private' });
    expect(
      text(await client.callTool({ name: names.get('test_simple_text')!, arguments: {} })),
    ).toBe('This is a simple text response for testing.');
    const headers = await client.callTool({
      name: names.get('test_custom_headers')!,
      arguments: { region: 'eu west ✓', priority: 3 },
    });
    expect(text(headers)).toBe('region=eu west ✓ priority=3');
    const progress: number[] = [];
    const done = await client.callTool(
      { name: names.get('test_tool_with_progress')!, arguments: {} },
      { onprogress: ({ progress: value }) => progress.push(value) },
    );
    expect(text(done)).toBe('Progress tool completed');
    expect(progress).toEqual([0, 50, 100]);
    // Portico answers, in its own name: the upstream's identity stays upstream.
    expect(done._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({
      name: 'Portico',
      version: '1.0.0',
    });
    expect(listed._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'Portico' });
  });

  it('calls a 2025 upstream for a modern client, with progress, on a pooled upstream session', async () => {
    const client = await connect();
    expect(text(await client.callTool({ name: names.get('echo')!, arguments: {} }))).toBe(
      'old:echo',
    );
    const progress: number[] = [];
    const done = await client.callTool(
      { name: names.get('slow')!, arguments: {} },
      { onprogress: ({ progress: value }) => progress.push(value) },
    );
    expect(text(done)).toBe('slow done');
    expect(progress).toEqual([1, 2]);
    // Three more calls from another client with the same capabilities: no new upstream session.
    const sessions = legacy.sessionCount;
    const other = await connect();
    for (let i = 0; i < 3; i++) await other.callTool({ name: names.get('echo')!, arguments: {} });
    expect(legacy.sessionCount).toBe(sessions);
  });

  it('does not serve a tool whose x-mcp-header annotation is invalid to modern clients', async () => {
    const client = await connect();
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain(names.get('echo'));
    expect(listed).not.toContain(names.get('badly_annotated'));
    const called = await raw(
      'tools/call',
      envelope({ name: names.get('badly_annotated'), arguments: {} }),
      { 'mcp-name': names.get('badly_annotated')! },
    );
    expect(called.body.error.code).toBe(-32602);
    // A 2025 client still gets it, as before.
    const old = await connectClient(t.baseUrl, { token: t.token });
    const oldListed = (await old.listTools()).tools.map((tool) => tool.name);
    expect(oldListed).toContain(names.get('badly_annotated'));
    await old.close();
  });

  it('reads resources and gets prompts', async () => {
    const client = await connect();
    const resources = await client.listResources();
    const staticText = resources.resources.find((resource) =>
      resource.uri.endsWith('static-text'),
    )!;
    const read = await client.readResource({ uri: staticText.uri });
    expect(read.contents[0]).toMatchObject({ uri: staticText.uri });
    expect(read).toMatchObject({ cacheScope: 'private' });
    const prompts = await client.listPrompts();
    const simple = prompts.prompts.find((prompt) => prompt.name.endsWith('test_simple_prompt'))!;
    const got = await client.getPrompt({ name: simple.name });
    expect(got.messages.length).toBeGreaterThan(0);
  });

  it('answers errors with the request id and the 2026-07-28 codes and statuses', async () => {
    const unknown = await raw('tools/call', envelope({ name: 'nope', arguments: {} }), {
      'mcp-name': 'nope',
    });
    expect(unknown).toMatchObject({ status: 200, body: { id: 'r-1', error: { code: -32602 } } });

    const version = await raw('tools/list', envelope({}, '2099-01-01'), {
      'mcp-protocol-version': '2099-01-01',
    });
    expect(version).toMatchObject({
      status: 400,
      body: {
        id: 'r-1',
        error: { code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } },
      },
    });

    const noMethod = await fetch(new URL('/mcp', t.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: envelope() }),
    });
    expect(noMethod.status).toBe(400);
    expect(await noMethod.json()).toMatchObject({ id: 7, error: { code: -32020 } });

    const wrongName = await raw('tools/call', envelope({ name: 'a', arguments: {} }), {
      'mcp-name': 'b',
    });
    expect(wrongName).toMatchObject({ status: 400, body: { id: 'r-1', error: { code: -32020 } } });

    for (const legacyOnly of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe']) {
      const answered = await raw(legacyOnly, envelope({ level: 'info', uri: 'x' }));
      expect(answered).toMatchObject({ status: 404, body: { id: 'r-1', error: { code: -32601 } } });
    }

    const badEnvelope = await raw('tools/list', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN },
    });
    expect(badEnvelope).toMatchObject({
      status: 400,
      body: { id: 'r-1', error: { code: -32602 } },
    });
  });

  it('sends log messages only at the level the request asked for', async () => {
    const call = (level?: string) =>
      fetch(new URL('/mcp', t.baseUrl), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': names.get('test_logging_tool')!,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: names.get('test_logging_tool'),
            arguments: {},
            _meta: {
              ...envelope()._meta,
              ...(level ? { 'io.modelcontextprotocol/logLevel': level } : {}),
            },
          },
        }),
      }).then((response) => response.text());
    const quiet = await call();
    expect(quiet).not.toContain('notifications/message');
    expect(quiet).toContain('"resultType":"complete"');
    const loud = await call('info');
    expect(loud.match(/notifications\/message/g)?.length).toBe(3);
  });

  it('tells a listen of a tool disabled through the API, and only the lists it asked for', async () => {
    const client = await connect();
    expect(client.getDiscoverResult()!.capabilities.tools).toEqual({ listChanged: true });
    const heard: string[] = [];
    const toolsChanged = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        heard.push('tools');
        resolve();
      }),
    );
    client.setNotificationHandler('notifications/prompts/list_changed', () => {
      heard.push('prompts');
    });
    const listen = await client.listen({ toolsListChanged: true });
    expect(listen.honoredFilter).toMatchObject({ toolsListChanged: true });
    const tool = (
      await t
        .api()
        .get(`/api/v1/tools/by-name/${names.get('test_simple_text')!}`)
        .expect(200)
    ).body as { id: string };
    await t.api().patch(`/api/v1/tools/${tool.id}`).send({ enabled: false }).expect(200);
    try {
      await toolsChanged;
      const listed = await client.listTools();
      expect(listed.tools.map((each) => each.name)).not.toContain(names.get('test_simple_text'));
      expect(heard).toEqual(['tools']);
    } finally {
      await t.api().patch(`/api/v1/tools/${tool.id}`).send({ enabled: true }).expect(200);
      await listen.close();
    }
  });

  it('serves a virtual server the same way', async () => {
    const client = await connect(await serverWithEchoes('Both eras'));
    expect(client.getDiscoverResult()!._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject(
      {
        name: 'Portico: Both eras',
      },
    );
    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(listed).toEqual(['echo', 'test_simple_text']);
    expect(text(await client.callTool({ name: 'echo', arguments: {} }))).toBe('old:echo');
    expect(text(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe(
      'This is a simple text response for testing.',
    );
  });

  it('keeps tool-search promotions for the principal in its scope, with no session', async () => {
    const path = await serverWithEchoes('Deferred', { enabled: true, alwaysLoaded: [] });
    const client = await connect(path);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['tool_search']);
    const refused = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/tool_search/);
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:test_simple_text' } });
    // A new client of the same principal (no session carries it) finds the promotion.
    const again = await connect(path);
    expect((await again.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'test_simple_text',
      'tool_search',
    ]);
    expect(text(await again.callTool({ name: 'test_simple_text', arguments: {} }))).toBe(
      'This is a simple text response for testing.',
    );
  });

  it('reads nothing from the database for a tools/call', async () => {
    const client = await connect();
    const call = () => client.callTool({ name: names.get('echo')!, arguments: {} });
    await call();
    await call();
    const reads: string[] = [];
    const driver = t.app.get(DataSource).driver as unknown as {
      createQueryRunner: (mode: string) => { query: (sql: string, ...rest: unknown[]) => unknown };
    };
    const create = driver.createQueryRunner.bind(driver);
    driver.createQueryRunner = (mode) => {
      const runner = create(mode);
      const query = runner.query.bind(runner);
      runner.query = (sql, ...rest) => {
        if (/^\s*select/i.test(sql)) reads.push(sql);
        return query(sql, ...rest);
      };
      return runner;
    };
    let byCalls: string[];
    try {
      for (let i = 0; i < 3; i++) expect(text(await call())).toBe('old:echo');
      byCalls = [...reads];
      // The count can fail: a request that does read is seen.
      await t.api().get('/api/v1/gateways').expect(200);
    } finally {
      driver.createQueryRunner = create;
    }
    expect(byCalls).toEqual([]);
    expect(reads.length).toBeGreaterThan(0);
  });
});
