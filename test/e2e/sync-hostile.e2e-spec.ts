import request from 'supertest';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { READ_TIMEOUTS } from '../../src/sync/catalogue.reader';
import { REPORT_ENTRIES, REPORT_TEXT } from '../../src/sync-report/sync-report';
import { DESCRIPTION_LIMIT } from '../../src/tools/tool-definition';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { pageSession } from '../support/identities';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

describe('sync of hostile upstreams', () => {
  let t: TestApp;
  const upstreams: UpstreamFixture[] = [];

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  });

  async function upstream(...args: Parameters<typeof startUpstream>): Promise<UpstreamFixture> {
    const started = await startUpstream(...args);
    upstreams.push(started);
    return started;
  }

  async function register(name: string, url: string) {
    return (await t.api().post('/api/v1/gateways').send({ name, url }).expect(201)).body;
  }

  it('stores a description with markup as plain text', async () => {
    const script = '<script>alert(document.cookie)</script><img src=x onerror=alert(1)>';
    const fixture = await upstream({ tools: [echoTool('xss', 'h', { description: script })] });
    await register('Markup', fixture.url);
    const tool = (await t.api().get('/api/v1/tools/by-name/markup-xss').expect(200)).body;
    expect(tool.description).toBe(script);
  });

  it('refuses bad definitions one by one, truncates a 5 MB description, and stores the rest', async () => {
    const fixture = await upstream({
      pageSize: 3,
      tools: [
        echoTool('fine', 'h'),
        { definition: { name: 'string_schema', inputSchema: 'object' } },
        { definition: { name: 'array_schema', inputSchema: [{ type: 'object' }] } },
        { definition: { name: 'string_typed', inputSchema: { type: 'string' } } },
        { definition: { name: 'no schema' } },
        echoTool('huge', 'h', { description: 'h'.repeat(5 * 1024 * 1024) }),
        echoTool('nul_text', 'h', { description: 'before\0after\uD800' }),
        echoTool('nul_schema', 'h', { inputSchema: { type: 'object', description: '\0' } }),
      ],
    });
    const created = await register('Sloppy', fixture.url);
    const report = created.lastSyncReport;
    expect(report.added).toEqual(['fine', 'huge', 'nul_text']);
    expect(report.conflicts).toEqual([
      {
        name: 'string_schema',
        reason: 'inputSchema is not a JSON Schema object with type "object"',
      },
      {
        name: 'array_schema',
        reason: 'inputSchema is not a JSON Schema object with type "object"',
      },
      {
        name: 'string_typed',
        reason: 'inputSchema is not a JSON Schema object with type "object"',
      },
      { name: 'no schema', reason: expect.stringContaining('MCP tool-name rule') },
      { name: 'nul_schema', reason: 'the definition contains NUL characters (U+0000)' },
    ]);
    expect(report.warnings).toEqual([
      {
        name: 'huge',
        reason: `description truncated from ${5 * 1024 * 1024} to ${DESCRIPTION_LIMIT} characters`,
      },
      { name: 'nul_text', reason: 'description contained NUL characters, which were removed' },
      {
        name: 'nul_text',
        reason: 'description contained unpaired UTF-16 surrogates, which were replaced by U+FFFD',
      },
    ]);
    const huge = (await t.api().get('/api/v1/tools/by-name/sloppy-huge').expect(200)).body;
    expect(huge.description).toHaveLength(DESCRIPTION_LIMIT);

    const again = (await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200)).body;
    expect(again).toMatchObject({ added: [], updated: [], removed: [], unchanged: 3 });
    const cleaned = (await t.api().get('/api/v1/tools/by-name/sloppy-nul_text').expect(200)).body;
    expect(cleaned.description).toBe('beforeafter\uFFFD');
  });

  it('reports a name listed twice and stores it once', async () => {
    const fixture = await upstream({
      pageSize: 1,
      // The fixture keys tools by name, so the duplicate rides on the page hook's second page.
      tools: [echoTool('twice', 'first'), echoTool('other', 'h')],
    });
    const original = fixture.tools.get('other')!;
    fixture.tools.set('other', {
      ...original,
      definition: { ...echoTool('twice', 'second').definition },
    });
    const created = await register('Duplicates', fixture.url);
    expect(created.lastSyncReport).toMatchObject({
      added: ['twice'],
      conflicts: [
        {
          name: 'twice',
          reason: 'the upstream lists this name more than once; the first entry was used',
        },
      ],
    });
    const tool = (await t.api().get('/api/v1/tools/by-name/duplicates-twice').expect(200)).body;
    expect(tool.description).toBe('twice of first');
    expect(created.toolCount).toBe(1);
  });

  it('refuses a tool whose virtual name another gateway has, and applies the rest of the sync', async () => {
    const a = await upstream({ tools: [echoTool('b-c', 'a')] });
    const ab = await upstream({ tools: [echoTool('c', 'ab'), echoTool('d', 'ab')] });
    await register('a', a.url);
    const second = await register('a b', ab.url);
    expect(second.lastSyncReport).toMatchObject({
      added: ['d'],
      conflicts: [
        {
          name: 'c',
          reason: "virtual name 'a-b-c' is already used by tool 'b-c' of gateway 'a'",
        },
      ],
    });
    const owner = (await t.api().get('/api/v1/tools/by-name/a-b-c').expect(200)).body;
    expect(owner.originalName).toBe('b-c');
  });

  it('fails the sync of an upstream whose pages never end, changing nothing', async () => {
    let endless = false;
    const fixture = await upstream({
      tools: [echoTool('looping', 'h')],
      configure: (server, self) =>
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [...self.tools.values()].map((tool) => tool.definition),
          ...(endless ? { nextCursor: 'again' } : {}),
        })),
    });
    const created = await register('Endless', fixture.url);
    expect(created.toolCount).toBe(1);
    endless = true;
    const failed = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
    expect(failed.body.detail).toContain('the upstream repeated a page cursor');
    const after = (await t.api().get(`/api/v1/gateways/${created.id}`).expect(200)).body;
    expect(after).toMatchObject({ toolCount: 1, status: 'failing' });
  });

  it('refuses a tool whose schema nests 3,000 deep and a huge one, and serves the rest', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 3000; i++) deep = { type: 'array', items: deep };
    const wide = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [
        `field_${i}`,
        { type: 'string', title: 'x'.repeat(40) },
      ]),
    );
    const fixture = await upstream({
      tools: [
        echoTool('before', 'h'),
        echoTool('deep', 'h', { inputSchema: { type: 'object', properties: { deep } } }),
        echoTool('huge', 'h', { inputSchema: { type: 'object', properties: wide } }),
        echoTool('after', 'h'),
      ],
    });
    const created = await register('Nested', fixture.url);
    expect(created.status).toBe('healthy');
    expect(created.lastSyncReport.added).toEqual(['after', 'before']);
    expect(created.lastSyncReport.conflicts).toEqual([
      {
        name: 'deep',
        reason:
          'the definition is nested more than 61 levels deep, past the limit (JSON_MAX_DEPTH 64, counted from its message)',
      },
      {
        name: 'huge',
        reason: expect.stringMatching(/^the definition is \d+ bytes, over the 262144-byte limit$/),
      },
    ]);
    await t.api().get('/api/v1/tools/by-name/nested-deep').expect(404);

    const client = await connectClient(t.baseUrl, { token: t.token });
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(expect.arrayContaining(['nested-before', 'nested-after']));
      expect(listed).not.toContain('nested-deep');
      const result = await client.callTool({ name: 'nested-after', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'h:after' }]);
    } finally {
      await client.close();
    }
    const again = (await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(200)).body;
    expect(again).toMatchObject({ added: [], unchanged: 2 });
    expect(again.conflicts.map((conflict: { name: string }) => conflict.name)).toEqual([
      'deep',
      'huge',
    ]);
  });

  it('syncs a list of 10,000 tools and keeps a bounded report of it', async () => {
    const count = 10_000;
    const longName = 'n'.repeat(5 * 1024 * 1024);
    const fixture = await upstream({
      pageSize: 2500,
      tools: [
        ...Array.from({ length: count }, (_, i) => echoTool(`tool_${i}`, 'many')),
        { definition: { name: longName, inputSchema: { type: 'object' } } },
      ],
    });
    const created = await register('Many', fixture.url);
    const read = await waitFor(
      async () => {
        const response = await t.api().get(`/api/v1/gateways/${created.id}`).expect(200);
        return response.body.lastSyncAt !== null && response;
      },
      'the first sync of 10,000 tools',
      60_000,
      200,
    );
    const synced = read.body;
    expect(synced.toolCount).toBe(count);
    // The report keeps the first entries of each list, by name, and counts the rest.
    const sorted = Array.from({ length: count }, (_, i) => `tool_${i}`).sort();
    expect(synced.lastSyncReport.added).toEqual(sorted.slice(0, REPORT_ENTRIES));
    expect(synced.lastSyncReport.omitted).toEqual({ added: count - REPORT_ENTRIES });
    const [conflict] = synced.lastSyncReport.conflicts;
    expect(conflict.name).toBe(`${'n'.repeat(REPORT_TEXT - 1)}…`);
    expect(conflict.reason).toContain('MCP tool-name rule');
    expect(read.text.length).toBeLessThan(64 * 1024);
    const listed = await t.api().get('/api/v1/gateways').expect(200);
    expect(listed.text.length).toBeLessThan(64 * 1024);
    const page = await t
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId: created.id, limit: 1, offset: 9_999 });
    expect(page.body.total).toBe(count);
    const admin = await request(t.baseUrl)
      .get(`/admin/gateways/${created.id}`)
      .set('Cookie', (await pageSession(t, 'admin', ADMIN_PASSWORD)).cookie)
      .expect(200);
    expect(admin.text).toContain(`Added (${count})`);
    expect(admin.text).toContain(`and ${count - REPORT_ENTRIES} more`);
  });
});

describe('sync of an upstream that sends its pages slowly without end', () => {
  const TIMEOUT_MS = 300;
  let t: TestApp;
  let fixture: UpstreamFixture;
  let endless = false;

  beforeAll(async () => {
    t = await startTestApp({ env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) } });
    // Each page comes within the timeout, and names a new page after it, without end.
    fixture = await startUpstream({
      tools: [echoTool('drip', 'h')],
      configure: (server, self) =>
        server.setRequestHandler(ListToolsRequestSchema, async (request) => {
          if (endless) await new Promise((resolve) => setTimeout(resolve, (TIMEOUT_MS * 2) / 3));
          const page = Number(request.params?.cursor ?? 0);
          return {
            tools: [...self.tools.values()].map((tool) => tool.definition),
            ...(endless ? { nextCursor: String(page + 1) } : {}),
          };
        }),
    });
  });

  afterAll(async () => {
    await t.close();
    await fixture.close();
  });

  it('fails the sync once the catalogue takes ten timeouts to read, changing nothing', async () => {
    const created = (
      await t.api().post('/api/v1/gateways').send({ name: 'Drip', url: fixture.url }).expect(201)
    ).body;
    expect(created.toolCount).toBe(1);
    endless = true;
    const started = Date.now();
    const failed = await t.api().post(`/api/v1/gateways/${created.id}/sync`).expect(502);
    expect(failed.body.detail).toContain(
      `the upstream did not send its whole catalogue within ${(READ_TIMEOUTS * TIMEOUT_MS) / 1000} s`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(READ_TIMEOUTS * TIMEOUT_MS);
    const after = (await t.api().get(`/api/v1/gateways/${created.id}`).expect(200)).body;
    expect(after).toMatchObject({ toolCount: 1, status: 'failing' });
    expect(after.lastError).toContain('did not send its whole catalogue');
  });
});
