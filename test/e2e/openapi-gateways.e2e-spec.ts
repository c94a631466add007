import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { type Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { petstoreDocument, type RestFixture, startPetstore } from '../fixtures/openapi-rest-server';
import { echoTool, startUpstream } from '../fixtures/upstream-server';
import { connectClient } from '../support/mcp-client';
import { MODERN } from '../support/modern-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface ToolJson {
  id: string;
  name: string;
}

/** Registers a gateway; the test app's registrations answer once their first sync has ended. */
async function registered(
  t: TestApp,
  gateway: Record<string, unknown>,
): Promise<{ id: string } & Record<string, unknown>> {
  const created = await t.api().post('/api/v1/gateways').send(gateway).expect(201);
  return created.body as { id: string } & Record<string, unknown>;
}

const text = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

describe('OpenAPI services as tools', () => {
  let t: TestApp;
  let rest: RestFixture;
  let tools: Map<string, string>;
  let server: { id: string };
  let token: string;
  let modern: Client;
  let legacy: LegacyClient;

  beforeAll(async () => {
    t = await startTestApp();
    rest = await startPetstore();
    await registered(t, {
      name: 'Pets',
      transport: 'openapi',
      url: `${rest.origin}/v2`,
      openapiUrl: `${rest.origin}/openapi.json`,
      auth: { type: 'bearer', token: 'pet-secret' },
    });
    const listed = await t.api().get('/api/v1/tools').query({ limit: 100 }).expect(200);
    tools = new Map(listed.body.items.map((tool: ToolJson) => [tool.name, tool.id]));
    server = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Petstore',
          toolIds: ['getPetById', 'findPetsByStatus', 'getInventory', 'getUserByName'].map((name) =>
            tools.get(`pets-${name}`),
          ),
        })
        .expect(201)
    ).body;
    token = (await t.api().post(`/api/v1/servers/${server.id}/tokens`).send({}).expect(201)).body
      .accessToken;
    modern = new Client(
      { name: 'modern-test', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: MODERN } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(`/servers/${server.id}/mcp`, t.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    legacy = await connectClient(t.baseUrl, { token, path: `/servers/${server.id}/mcp` });
  });

  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    await t?.close();
    await rest?.close();
  });

  it('syncs the read-only operations by default, named by operationId', () => {
    const names = [...tools.keys()].filter((name) => name.startsWith('pets-')).sort();
    expect(names).toEqual(
      [
        'findPetsByStatus',
        'findPetsByTags',
        'getInventory',
        'getOrderById',
        'getPetById',
        'getUserByName',
        'loginUser',
        'logoutUser',
      ].map((name) => `pets-${name}`),
    );
  });

  it('lists the operations to clients of both eras, with schemas and annotations', async () => {
    const listed = (await modern.listTools()).tools;
    const byId = listed.find((tool) => tool.name === 'pets-getPetById')!;
    expect(byId.inputSchema).toMatchObject({
      type: 'object',
      properties: { petId: { type: 'integer' } },
      required: ['petId'],
    });
    expect(byId.annotations).toMatchObject({ readOnlyHint: true });
    expect(byId.outputSchema).toMatchObject({ type: 'object' });
    expect(byId.description).toContain('GET /pet/{petId}');
    const old = (await legacy.listTools()).tools.map((tool) => tool.name).sort();
    expect(old).toEqual(listed.map((tool) => tool.name).sort());
  });

  it('calls an operation as one HTTP request with the gateway’s credentials', async () => {
    const result = await modern.callTool({
      name: 'pets-getPetById',
      arguments: { petId: 1 },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: 1, name: 'Rex' });
    const request = rest.seen.find((seen) => seen.url === '/v2/pet/1')!;
    expect(request.authorization).toBe('Bearer pet-secret');
    const old = await legacy.callTool({ name: 'pets-getInventory', arguments: {} });
    expect(old.structuredContent).toEqual({ available: 1, sold: 1 });
  });

  it('serialises an exploded query array and wraps a JSON array', async () => {
    const result = await modern.callTool({
      name: 'pets-findPetsByStatus',
      arguments: { status: ['available', 'sold'] },
    });
    expect(
      rest.seen.some((seen) => seen.url === '/v2/pet/findByStatus?status=available&status=sold'),
    ).toBe(true);
    expect((result.structuredContent as { result: unknown[] }).result).toHaveLength(2);
  });

  it('makes a 404 a tool error carrying the status and the body', async () => {
    const result = await modern.callTool({
      name: 'pets-getPetById',
      arguments: { petId: 404 },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('HTTP 404');
    expect(text(result)).toContain('Pet 404 not found');
  });

  it('escapes path parameters: no traversal through ../', async () => {
    const result = await modern.callTool({
      name: 'pets-getUserByName',
      arguments: { username: '../store/inventory' },
    });
    expect(rest.seen.some((seen) => seen.url === '/v2/user/..%2Fstore%2Finventory')).toBe(true);
    expect(result.structuredContent).toMatchObject({ username: '../store/inventory' });
    const dots = await modern.callTool({
      name: 'pets-getUserByName',
      arguments: { username: '..' },
    });
    expect(dots.isError).toBe(true);
    expect(text(dots)).toContain('may not be empty, "." or ".."');
  });

  it("keeps an operation's requests inside the base URL, and the gateway's credentials its own", async () => {
    const header = (name: string) => ({ name, in: 'header', schema: { type: 'string' } });
    const ok = { '200': { description: 'ok' } };
    const gateway = await registered(t, {
      name: 'Hostile',
      transport: 'openapi',
      url: `${rest.origin}/hostile`,
      auth: { type: 'headers', headers: { 'X-Api-Key': 'key-secret-1' } },
      openapiSelection: { methods: ['GET', 'DELETE'] },
      openapiDocument: JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Hostile', version: '1' },
        paths: {
          '/../../admin/users': { delete: { operationId: 'escape', responses: ok } },
          '/%2E%2e/admin': { get: { operationId: 'escapeEscaped', responses: ok } },
          // What WHATWG URL parsers (and IIS) read as `/`, and Tomcat's `..;`.
          '/pets/..\\..\\admin/users': { get: { operationId: 'escapeBackslash', responses: ok } },
          '/pets/..%5Cadmin': { get: { operationId: 'escapeEscapedBackslash', responses: ok } },
          '/pets/..;/..;/admin/users': { get: { operationId: 'escapeMatrix', responses: ok } },
          '/echo': {
            get: {
              operationId: 'echo',
              parameters: [
                'Host',
                'Cookie',
                'Proxy-Authorization',
                'X-HTTP-Method-Override',
                'X-Original-URL',
                'X-Forwarded-For',
                'Forwarded',
                'X-API-KEY',
                'X-Note',
              ].map(header),
              responses: ok,
            },
          },
        },
      }),
    });
    const report = JSON.stringify((await t.api().get(`/api/v1/gateways/${gateway.id}`)).body);
    expect(report).toContain('DELETE /../../admin/users: its path has a . or .. segment');
    expect(report).toContain('GET /%2E%2e/admin: its path has a . or .. segment');
    for (const path of [
      '/pets/..\\\\..\\\\admin/users',
      '/pets/..%5Cadmin',
      '/pets/..;/..;/admin/users',
    ])
      expect(report).toContain(`GET ${path}: its path has a . or .. segment`);
    const listed = await t.api().get('/api/v1/tools').query({ gatewayId: gateway.id }).expect(200);
    expect(listed.body.items.map((tool: ToolJson) => tool.name)).toEqual(['hostile-echo']);
    const echo = listed.body.items[0] as { inputSchema: { properties: object } };
    expect(Object.keys(echo.inputSchema.properties).sort()).toEqual(['X-API-KEY', 'X-Note']);

    const invoke = (args: Record<string, unknown>) =>
      t
        .api()
        .post(`/api/v1/tools/${listed.body.items[0].id as string}/invoke`)
        .send({ arguments: args })
        .expect(200);
    const seenBefore = rest.seen.length;
    const refused = await invoke({ Host: 'other.internal', Cookie: 'session=caller' });
    expect(JSON.stringify(refused.body)).toContain('unknown arguments: Host, Cookie');
    const overriding = await invoke({ 'X-HTTP-Method-Override': 'DELETE', Forwarded: 'for=x' });
    expect(JSON.stringify(overriding.body)).toContain(
      'unknown arguments: X-HTTP-Method-Override, Forwarded',
    );
    // A value HTTP would not send is the caller's error, however often: the breaker stays shut.
    for (let i = 0; i < 10; i++) {
      const bad = await invoke({ 'X-Note': i % 2 ? '\u0001' : '\u20ac' });
      expect(JSON.stringify(bad.body)).toContain('printable ASCII and tabs');
    }
    expect(rest.seen).toHaveLength(seenBefore);
    const invoked = await invoke({ 'X-API-KEY': 'caller-key', 'X-Note': 'hello' });
    expect(rest.seen.length).toBe(seenBefore + 1);
    const [sent] = rest.seen.slice(seenBefore);
    expect(sent).toMatchObject({ method: 'GET', url: '/hostile/echo' });
    expect(sent!.headers).toMatchObject({
      'x-api-key': 'key-secret-1',
      'x-note': 'hello',
      host: new URL(rest.origin).host,
    });
    expect(sent!.headers).not.toHaveProperty('cookie');
    // The upstream quoted the key it refused: the caller reads it cut out.
    expect(invoked.body).toMatchObject({ isError: true });
    expect(JSON.stringify(invoked.body)).toContain('invalid api key [redacted]');
    expect(JSON.stringify(invoked.body)).not.toContain('key-secret-1');
  });

  it('applies policies to operations as to any tool', async () => {
    await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-users',
        expression: `tool.id == "${tools.get('pets-getUserByName')}"`,
        effect: 'deny',
      })
      .expect(201);
    const seenBefore = rest.seen.length;
    const denied = await modern
      .callTool({ name: 'pets-getUserByName', arguments: { username: 'x' } })
      .then((result) => result.isError === true)
      .catch(() => true);
    expect(denied).toBe(true);
    expect(rest.seen.slice(seenBefore).some((seen) => seen.url.startsWith('/v2/user/'))).toBe(
      false,
    );
  });

  it('takes the description in the body, and writes only when the operator opts in', async () => {
    const created = await registered(t, {
      name: 'Pets Writer',
      transport: 'openapi',
      url: `${rest.origin}/v2/`,
      openapiDocument: petstoreDocument(),
      openapiSelection: { methods: ['POST', 'DELETE'], includePaths: ['/pet', '/pet/**'] },
    });
    expect(created).toMatchObject({
      transport: 'openapi',
      openapiUrl: null,
      openapiDocumentStored: true,
    });
    const listed = await t.api().get('/api/v1/tools').query({ limit: 100 }).expect(200);
    const names = listed.body.items
      .map((tool: ToolJson) => tool.name)
      .filter((name: string) => name.startsWith('pets-writer-'))
      .sort();
    // uploadFile takes application/octet-stream, which Portico does not send: reported, not synced.
    expect(names).toEqual([
      'pets-writer-addPet',
      'pets-writer-deletePet',
      'pets-writer-updatePetWithForm',
    ]);
    const report = (await t.api().get(`/api/v1/gateways/${created.id}`).expect(200)).body;
    expect(JSON.stringify(report)).toContain('only JSON and form bodies are sent');
  });

  it('refuses what is not OpenAPI 3 at once', async () => {
    const refused = await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Swagger Two',
        transport: 'openapi',
        url: `${rest.origin}/two`,
        openapiDocument: JSON.stringify({ swagger: '2.0', paths: {} }),
      })
      .expect(422);
    expect(JSON.stringify(refused.body)).toContain('not OpenAPI 3.0 or 3.1');
  });

  it('reads a YAML description of 100,000 aliases', async () => {
    // Each alias the YAML library resolved scanned the document: this held the replica for minutes.
    const aliases = Array(100_000).fill('*a').join(',');
    const yaml = `openapi: 3.0.3\ninfo: {title: Aliases, version: '1'}\nx-one: &a 1\nx-many: [${aliases}]\npaths: {}\n`;
    const created = await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Aliases',
        transport: 'openapi',
        url: `${rest.origin}/aliases/`,
        openapiDocument: yaml,
      })
      .expect(201);
    expect(created.body).toMatchObject({ transport: 'openapi', openapiDocumentStored: true });
  });

  it('is described by the configuration document, applied again as no change and exported', async () => {
    // Another base URL than the gateways above: a gateway's URL is unique, whatever its transport.
    const base = rest.origin.replace('127.0.0.1', 'localhost');
    const document = {
      apiVersion: 'portico/v1',
      gateways: [
        {
          name: 'Pets Config',
          transport: 'openapi',
          url: `${base}/v2`,
          openapi: {
            url: `${rest.origin}/openapi.json`,
            methods: ['GET'],
            includePaths: ['/store/**'],
          },
        },
      ],
    };
    const applied = await t.api().put('/api/v1/config').send(document).expect(200);
    expect(JSON.stringify(applied.body.changes)).toContain('Pets Config');
    await waitFor(async () => {
      const { body } = await t.api().get('/api/v1/tools').query({ limit: 100 }).expect(200);
      return (body as { items: ToolJson[] }).items.some((tool) =>
        tool.name.startsWith('pets-config-'),
      );
    }, 'the configured gateway synced');
    const { body } = await t.api().get('/api/v1/tools').query({ limit: 100 }).expect(200);
    expect(
      (body as { items: ToolJson[] }).items
        .map((tool) => tool.name)
        .filter((name) => name.startsWith('pets-config-'))
        .sort(),
    ).toEqual(['pets-config-getInventory', 'pets-config-getOrderById']);
    expect((await t.api().put('/api/v1/config').send(document).expect(200)).body.changes).toEqual(
      [],
    );
    const exported = await t.api().get('/api/v1/config').expect(200);
    const gateways = exported.body.gateways as { name: string }[];
    expect(gateways.find((gateway) => gateway.name === 'Pets Config')).toEqual({
      name: 'Pets Config',
      transport: 'openapi',
      url: `${base}/v2`,
      openapi: {
        url: `${rest.origin}/openapi.json`,
        methods: ['GET'],
        includePaths: ['/store/**'],
      },
    });
  });

  it('keeps an MCP tool whose virtual name an operation would take, and reports the operation', async () => {
    const mcp = await startUpstream({ name: 'up', tools: [echoTool('a-b', 'up')] });
    try {
      await registered(t, { name: 'Up', url: mcp.url });
      const document = JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'clash', version: '1' },
        paths: { '/b': { get: { operationId: 'b', responses: { '200': { description: 'ok' } } } } },
      });
      const created = await registered(t, {
        name: 'Up A',
        transport: 'openapi',
        url: `${rest.origin}/clash`,
        openapiDocument: document,
      });
      const { body } = await t.api().get('/api/v1/tools').query({ q: 'up-a-b' }).expect(200);
      const clashing = (body as { items: (ToolJson & { gatewayId?: string })[] }).items.filter(
        (tool) => tool.name === 'up-a-b',
      );
      expect(clashing).toHaveLength(1);
      expect(clashing[0]!.gatewayId).toEqual(expect.any(String));
      expect(clashing[0]!.gatewayId).not.toBe(created.id);
      const gateway = (await t.api().get(`/api/v1/gateways/${created.id}`).expect(200)).body;
      expect(JSON.stringify(gateway.lastSyncReport)).toContain('up-a-b');
    } finally {
      await mcp.close();
    }
  });
});
