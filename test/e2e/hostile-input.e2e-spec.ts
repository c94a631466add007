import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import request from 'supertest';
import { AuditSettings } from '../../src/config/slices/audit.settings';
import {
  echoTool,
  type FixtureTool,
  startUpstream,
  type UpstreamFixture,
} from '../fixtures/upstream-server';
import { connectClient, initializeRequest, postMcp } from '../support/mcp-client';
import { type PorticoProcess, startPorticoProcess } from '../support/portico-process';
import { modernClient, rawListen } from '../support/modern-client';
import { openSse } from '../support/sse';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

const DEPTH_LIMIT =
  'The request body is nested more than 64 levels deep, past the limit (JSON_MAX_DEPTH)';

/** `[[[…]]]` nested `depth` deep, as raw JSON text (JSON.stringify could not write it). */
function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** `{"a":{"a":…}}` nested `depth` deep, as raw JSON text. */
function nestedObjects(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

function deepCall(id: number, depth: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"alpha-echo","arguments":{"deep":${nestedObjects(depth)}}}}`;
}

/** A tool whose result nests 3,000 deep: a hostile upstream's answer. */
const deepResult: FixtureTool = {
  definition: { name: 'deep_result', inputSchema: { type: 'object' } },
  handler: () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) deep = { a: deep };
    return { content: [{ type: 'text', text: 'deep' }], structuredContent: deep };
  },
};

/** An MCP session's initialize, by hand, as client `clientName`; its Mcp-Session-Id. */
async function openSession(baseUrl: string, token: string, clientName = 'raw'): Promise<string> {
  const initialize = initializeRequest();
  const response = await postMcp(`${baseUrl}/mcp`, token, {
    ...initialize,
    params: { ...initialize.params, clientInfo: { name: clientName, version: '1' } },
  });
  expect(response.status).toBe(200);
  await response.text();
  const session = response.headers.get('mcp-session-id')!;
  const initialized = await postMcp(
    `${baseUrl}/mcp`,
    token,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'Mcp-Session-Id': session },
  );
  expect(initialized.status).toBe(202);
  return session;
}

/** The JSON-RPC error an MCP POST was refused with, and its HTTP status. */
async function refusal(response: Response) {
  const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
  return {
    status: response.status,
    id: body.id,
    code: body.error.code,
    message: body.error.message,
  };
}

/** A normal tools/call through a fresh SDK client: the process still serves. */
async function stillServes(baseUrl: string, token: string): Promise<void> {
  const client: Client = await connectClient(baseUrl, { token });
  try {
    const result = await client.callTool({ name: 'alpha-echo', arguments: { n: 1 } });
    expect(result.content).toEqual([{ type: 'text', text: 'alpha:echo' }]);
  } finally {
    await client.close();
  }
}

/**
 * One app serves all the file's tests but those of a process of its own: none depends on what
 * another left. It keeps the whole arguments in the audit trail, the most of them the trail walks.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    env: { AUDIT_ARGUMENTS: 'full', BODY_LIMIT_BYTES: String(256 * 1024) },
  });
});

afterAll(async () => {
  await t.close();
});

describe('hostile input on every endpoint', () => {
  let upstream: UpstreamFixture;

  beforeAll(async () => {
    upstream = await startUpstream({ tools: [echoTool('echo', 'alpha'), deepResult] });
  });

  afterAll(async () => {
    await upstream.close();
  });

  describe('on the app', () => {
    let session: string;

    beforeAll(async () => {
      await t.api().post('/api/v1/gateways').send({ name: 'alpha', url: upstream.url }).expect(201);
      session = await openSession(t.baseUrl, t.token);
    });

    const mcp = (body: string, headers: Record<string, string> = {}) =>
      postMcp(`${t.baseUrl}/mcp`, t.token, body, { 'Mcp-Session-Id': session, ...headers });

    // The app reads AUDIT_ARGUMENTS at each call, so each setting is set on it for its own call,
    // in a session of its own whose client name tells its entry apart, rather than on an app of
    // its own; the app's own setting, from its environment, is the last.
    it.each(['none', 'digest', 'full'] as const)(
      'calls with arguments nested as deep as the limit allows, and audits them with AUDIT_ARGUMENTS=%s',
      async (kept) => {
        const setting = jest.replaceProperty(t.app.get(AuditSettings).audit, 'arguments', kept);
        let entry: Awaited<ReturnType<typeof eventuallyAudited>>;
        try {
          const audited = await openSession(t.baseUrl, t.token, `audit-${kept}`);
          // message, params, arguments, deep: 4 levels before the nested objects.
          const response = await mcp(deepCall(8, 60), { 'Mcp-Session-Id': audited });
          expect(response.status).toBe(200);
          expect(await response.text()).toContain('alpha:echo');
          entry = await eventuallyAudited(t, 'alpha-echo', `audit-${kept}`);
        } finally {
          setting.restore();
        }
        expect(entry.argumentsDigest === null).toBe(kept === 'none');
        expect(entry.arguments === null).toBe(kept !== 'full');
      },
    );

    it('refuses a tools/call whose arguments nest 10,000 deep with 400, its id, and the limit', async () => {
      expect(await refusal(await mcp(deepCall(7, 10_000)))).toEqual({
        status: 400,
        id: 7,
        code: -32600,
        message: DEPTH_LIMIT,
      });
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses whole bodies nested 10,000 deep, arrays or objects, on /mcp', async () => {
      for (const body of [nestedArrays(10_000), nestedObjects(10_000)]) {
        expect(await refusal(await mcp(body))).toEqual({
          status: 400,
          id: null,
          code: -32600,
          message: DEPTH_LIMIT,
        });
      }
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses an initialize whose capabilities nest 10,000 deep, and opens no session', async () => {
      const deep = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"x","version":"1"},"capabilities":{"experimental":${nestedObjects(10_000)}}}}`;
      const response = await postMcp(`${t.baseUrl}/mcp`, t.token, deep);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(await refusal(response)).toEqual({
        status: 400,
        id: 'init',
        code: -32600,
        message: DEPTH_LIMIT,
      });
      await stillServes(t.baseUrl, t.token);
    });

    it('opens a session whose initialize holds what PostgreSQL cannot store, keeping the rest of it', async () => {
      for (const name of ['\\ud800x', 'a\\u0000b']) {
        const body = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"${name}","version":"1"},"capabilities":{"experimental":{"k\\u0000":{"v":"\\udc00"}}}}}`;
        const response = await postMcp(`${t.baseUrl}/mcp`, t.token, body);
        expect(response.status).toBe(200);
        expect(response.headers.get('mcp-session-id')).toBeTruthy();
        expect(((await response.json()) as { id: unknown }).id).toBe('init');
      }
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses an oversized body with 413, invalid JSON with 400, a wrong type with 415', async () => {
      const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'x'.repeat(300 * 1024)}"}}`;
      expect(await refusal(await mcp(huge))).toMatchObject({
        status: 413,
        message: `The request body is larger than ${256 * 1024} bytes, past the limit (BODY_LIMIT_BYTES)`,
      });
      expect(await refusal(await mcp('{"jsonrpc":"2.0",'))).toMatchObject({
        status: 400,
        code: -32700,
      });
      expect(
        (await mcp('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'Content-Type': 'text/plain' }))
          .status,
      ).toBe(415);
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses params or _meta that are no objects, and a progress token of another type, in both eras, saying which', async () => {
      const envelope = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
      };
      const call = (params: unknown) =>
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params });
      const modern = (params: unknown) =>
        postMcp(`${t.baseUrl}/mcp`, t.token, call(params), {
          'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'tools/call',
          'Mcp-Name': 'alpha-echo',
        });
      const named = { name: 'alpha-echo', arguments: {} };
      const cases: [Response, string][] = [
        [await mcp(call([named])), 'params must be an object'],
        [await mcp(call({ ...named, _meta: 'x' })), 'params._meta must be an object'],
        [
          await mcp(call({ ...named, _meta: { progressToken: { a: 1 } } })),
          'params._meta.progressToken must be a string or an integer',
        ],
        [await modern({ ...named, _meta: 'x' }), 'params._meta must be an object'],
        [
          await modern({ ...named, _meta: { ...envelope, progressToken: 1.5 } }),
          'params._meta.progressToken must be a string or an integer',
        ],
      ];
      for (const [response, message] of cases)
        expect(await refusal(response)).toEqual({ status: 400, id: 5, code: -32600, message });
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses a listen whose notifications are missing or no filter, saying what is wrong', async () => {
      const cases: [unknown, string][] = [
        [undefined, "Invalid params: 'notifications' is required"],
        [5, "Invalid params: 'notifications' is required"],
        [[true], "Invalid params: 'notifications' is required"],
        [{ toolsListChanged: 'yes' }, 'notifications.toolsListChanged must be a boolean'],
        [{ resourceSubscriptions: 'a://1' }, 'notifications.resourceSubscriptions must be a list'],
        [{ taskIds: [1] }, 'notifications.taskIds must be a list of strings'],
      ];
      for (const [notifications, message] of cases) {
        const filter = notifications as Record<string, unknown>;
        const { reader } = await rawListen(t.baseUrl, t.token, filter);
        const answer = (await reader.nextMessage())?.message as {
          id: unknown;
          error: { code: number; message: string };
        };
        expect(answer).toMatchObject({ id: 'listen-1', error: { code: -32602 } });
        expect(answer.error.message).toContain(message);
      }
      // Unknown fields are no reason to refuse: the acknowledgement leaves them out.
      const { reader } = await rawListen(t.baseUrl, t.token, { toolsListChanged: true, x: 1 });
      expect((await reader.nextMessage())?.message).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { toolsListChanged: true } },
      });
      reader.drop();
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses a deep POST of the older HTTP+SSE transport', async () => {
      const { reader } = await openSse(`${t.baseUrl}/sse`, {
        headers: { Authorization: `Bearer ${t.token}`, Accept: 'text/event-stream' },
      });
      try {
        const endpoint = (await reader.next())!.data;
        const response = await postMcp(`${t.baseUrl}${endpoint}`, t.token, deepCall(9, 10_000));
        expect(await refusal(response)).toEqual({
          status: 400,
          id: 9,
          code: -32600,
          message: DEPTH_LIMIT,
        });
      } finally {
        reader.drop();
      }
      await stillServes(t.baseUrl, t.token);
    });

    it('refuses deep and oversized REST and OAuth bodies with problem documents', async () => {
      const deepRest = await t
        .api()
        .post('/api/v1/servers')
        .type('json')
        .send(`{"name":"deep","description":${nestedArrays(10_000)}}`);
      expect(deepRest.status).toBe(400);
      expect(deepRest.headers['content-type']).toContain('application/problem+json');
      expect(deepRest.body.detail).toBe(
        'The request body is nested more than 64 levels deep, past the limit (JSON_MAX_DEPTH).',
      );
      const hugeRest = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'x'.repeat(300 * 1024) });
      expect(hugeRest.status).toBe(413);
      expect(hugeRest.body.detail).toBe(
        `The request body is larger than ${256 * 1024} bytes, past the limit (BODY_LIMIT_BYTES).`,
      );
      for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
        const deepOAuth = await request(t.baseUrl)
          .post(path)
          .type('json')
          .send(`{"redirect_uris":${nestedObjects(10_000)}}`);
        expect({ path, status: deepOAuth.status, detail: deepOAuth.body.detail }).toEqual({
          path,
          status: 400,
          detail:
            'The request body is nested more than 64 levels deep, past the limit (JSON_MAX_DEPTH).',
        });
      }
      await stillServes(t.baseUrl, t.token);
    });

    it('blames an upstream whose result nests 3,000 deep, and goes on serving', async () => {
      const client = await connectClient(t.baseUrl, { token: t.token });
      try {
        await expect(
          client.callTool({ name: 'alpha-deep_result', arguments: {} }),
        ).rejects.toMatchObject({
          code: -32012,
          message: expect.stringContaining(
            "Upstream 'alpha' answered with a message Portico cannot use: the upstream sent a message nested more than 64 levels deep, past the limit (JSON_MAX_DEPTH)",
          ) as unknown,
        });
      } finally {
        await client.close();
      }
      await stillServes(t.baseUrl, t.token);
    });
  });

  describe('in a process of its own', () => {
    let portico: PorticoProcess;
    let database: TestDatabase | null = null;
    let token: string;

    beforeAll(async () => {
      database = onPostgres ? await createTestDatabase() : null;
      portico = await startPorticoProcess({
        ADMIN_PASSWORD,
        PASSWORD_HASH_COST: '14',
        ...(database ? { DATABASE_URL: database.url } : {}),
      });
      token = (
        await request(portico.baseUrl)
          .post('/api/v1/auth/token')
          .send({ username: 'admin', password: ADMIN_PASSWORD })
          .expect(200)
      ).body.accessToken as string;
      await request(portico.baseUrl)
        .post('/api/v1/gateways')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'alpha', url: upstream.url })
        .expect(201);
    }, 90_000);

    afterAll(async () => {
      await portico.stop();
      await database?.drop();
    });

    it('survives a 10,000-deep call, initialize, REST and OAuth body, and still serves', async () => {
      const session = await openSession(portico.baseUrl, token);
      const statuses = [
        (
          await postMcp(`${portico.baseUrl}/mcp`, token, deepCall(1, 10_000), {
            'Mcp-Session-Id': session,
          })
        ).status,
        (
          await postMcp(
            `${portico.baseUrl}/mcp`,
            token,
            `{"jsonrpc":"2.0","id":2,"method":"initialize","params":${nestedObjects(10_000)}}`,
          )
        ).status,
        (
          await request(portico.baseUrl)
            .post('/api/v1/servers')
            .set('Authorization', `Bearer ${token}`)
            .type('json')
            .send(nestedArrays(10_000))
        ).status,
        (
          await request(portico.baseUrl)
            .post('/oauth/register')
            .type('json')
            .send(nestedArrays(10_000))
        ).status,
      ];
      expect(statuses).toEqual([400, 400, 400, 400]);
      await stillServes(portico.baseUrl, token);
      expect(portico.output()).not.toContain('Maximum call stack size exceeded');
    });
  });
});

/**
 * A 2025 upstream by hand, one JSON answer a POST, whose calls answer with what is not a result
 * or an error of JSON-RPC: `result` null, a number, a string or an array, `error` a string or
 * with a code that is not an integer; or with what is not HTTP undici reads: headers past its
 * 16 KiB (`huge_headers`), bytes that are no HTTP (`not_http`); or with no answer: a redirect to
 * `/mcp/` (`redirect`), a 204 (`no_content`), an event stream that ends before the answer
 * after an id that could not go back as `Last-Event-ID` (`unusable_event_id`). `ok` answers
 * properly. Its resources and prompts answer reads and gets with `contents` or `messages` of
 * the wrong shape (`READS`, `GETS`).
 */
const READS: Record<string, unknown> = {
  'bad://not-an-array': 'contents',
  'bad://nulls': [null],
  'bad://no-uri': [{ text: 'x' }],
  'bad://missing': undefined,
};
const GETS: Record<string, unknown> = { nulls: [null], string: 'hello', numbers: [1, 2] };
const UNANSWERED = ['huge_headers', 'not_http', 'redirect', 'no_content', 'unusable_event_id'];

async function startMalformedUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const answers: Record<string, Record<string, unknown>> = {
    null_result: { result: null },
    number_result: { result: 42 },
    string_result: { result: 'done' },
    array_result: { result: [] },
    string_error: { error: 'failed' },
    float_code: { error: { code: 1.5, message: 'failed' } },
    ok: { result: { content: [{ type: 'text', text: 'fine' }] } },
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(body || '{}') as {
        id?: number;
        method?: string;
        params?: { name?: string; protocolVersion?: string; uri?: string };
      };
      if (req.method !== 'POST' || message.id === undefined) return void res.writeHead(202).end();
      const reply = (answer: Record<string, unknown>) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer }));
      if (message.params?.name === 'huge_headers')
        return void res.writeHead(200, { 'x-padding': 'z'.repeat(70_000) }).end('{}');
      if (message.params?.name === 'not_http') return void res.socket?.end('NOT HTTP\r\n\r\n');
      if (message.params?.name === 'redirect')
        return void res.writeHead(307, { location: '/mcp/' }).end();
      if (message.params?.name === 'no_content') return void res.writeHead(204).end();
      if (message.params?.name === 'unusable_event_id')
        return void res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end('id: évènement-1\ndata: \n\n');
      switch (message.method) {
        case 'initialize':
          return reply({
            result: {
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {}, resources: {}, prompts: {} },
              serverInfo: { name: 'malformed', version: '1.0.0' },
            },
          });
        case 'tools/list':
          return reply({
            result: {
              tools: [...Object.keys(answers), ...UNANSWERED].map((name) => ({
                name,
                inputSchema: { type: 'object' },
              })),
            },
          });
        case 'tools/call':
          return reply(answers[message.params?.name ?? ''] ?? { result: {} });
        case 'resources/list':
          return reply({
            result: { resources: Object.keys(READS).map((uri) => ({ uri, name: uri })) },
          });
        case 'resources/templates/list':
          return reply({ result: { resourceTemplates: [] } });
        case 'resources/read':
          return reply({ result: { contents: READS[message.params?.uri ?? ''] } });
        case 'prompts/list':
          return reply({ result: { prompts: Object.keys(GETS).map((name) => ({ name })) } });
        case 'prompts/get':
          return reply({ result: { messages: GETS[message.params?.name ?? ''] } });
        case undefined:
        default:
          return reply({ error: { code: -32601, message: 'Method not found' } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('an upstream that answers with what is not JSON-RPC', () => {
  const MALFORMED = [
    ['null_result', 'a result that is not an object'],
    ['number_result', 'a result that is not an object'],
    ['string_result', 'a result that is not an object'],
    ['array_result', 'a result that is not an object'],
    ['string_error', 'a malformed error'],
    ['float_code', 'a malformed error'],
    ['huge_headers', 'a malformed HTTP response (Headers Overflow Error)'],
    ['not_http', 'a malformed HTTP response'],
    [
      'redirect',
      'a redirect (HTTP 307 to /mcp/), which Portico does not follow: register the URL it names',
    ],
    ['no_content', 'HTTP 204 and no message'],
  ];
  let upstream: Awaited<ReturnType<typeof startMalformedUpstream>>;
  let ids: Map<string, string>;

  beforeAll(async () => {
    upstream = await startMalformedUpstream();
    await t.api().post('/api/v1/gateways').send({ name: 'raw', url: upstream.url }).expect(201);
    const tools = (await t.api().get('/api/v1/tools').expect(200)).body.items as {
      id: string;
      originalName: string;
    }[];
    ids = new Map(tools.map((tool) => [tool.originalName, tool.id]));
  });

  afterAll(async () => {
    await upstream.close();
  });

  it.each(MALFORMED)(
    'answers a call of %s with an error that blames the upstream, for clients of both eras and REST',
    async (tool, fault) => {
      const message = `Upstream 'raw' answered with a message Portico cannot use: the upstream answered with ${fault}`;
      const session = await connectClient(t.baseUrl, { token: t.token });
      const modern = await modernClient(t);
      try {
        await expect(
          session.callTool({ name: `raw-${tool}`, arguments: {} }),
        ).rejects.toMatchObject({
          code: -32012,
          message: expect.stringContaining(message) as unknown,
        });
        await expect(modern.callTool({ name: `raw-${tool}`, arguments: {} })).rejects.toMatchObject(
          {
            code: -32012,
            message: expect.stringContaining(message) as unknown,
          },
        );
        // The connection is not lost for it: the next call on it is answered.
        const ok = await session.callTool({ name: 'raw-ok', arguments: {} });
        expect(ok.content).toEqual([{ type: 'text', text: 'fine' }]);
      } finally {
        await session.close();
        await modern.close();
      }
      const invoked = await t
        .api()
        .post(`/api/v1/tools/${ids.get(tool)}/invoke`)
        .send({ arguments: {} })
        .expect(502);
      expect(invoked.body.detail).toContain(`the upstream answered with ${fault}`);
    },
  );

  it('blames an upstream whose resource contents or prompt messages have the wrong shape, in both eras', async () => {
    const session = await connectClient(t.baseUrl, { token: t.token });
    const modern = await modernClient(t);
    const blamed = (what: string) => ({
      code: -32012,
      message: expect.stringContaining(
        `Upstream 'raw' answered with a message Portico cannot use: the upstream's ${what}`,
      ) as unknown,
    });
    try {
      for (const client of [session, modern]) {
        for (const uri of Object.keys(READS))
          await expect(client.readResource({ uri: `raw+${uri}` })).rejects.toMatchObject(
            blamed('resources/read result has no contents array of objects with a uri'),
          );
        for (const name of Object.keys(GETS))
          await expect(client.getPrompt({ name: `raw-${name}` })).rejects.toMatchObject(
            blamed('prompts/get result has no messages array of objects'),
          );
        const ok = await client.callTool({ name: 'raw-ok', arguments: {} });
        expect(ok.content).toEqual([{ type: 'text', text: 'fine' }]);
      }
    } finally {
      await session.close();
      await modern.close();
    }
  });

  it('blames an upstream whose event id could not go back to resume its stream, in both eras', async () => {
    const session = await connectClient(t.baseUrl, { token: t.token });
    const modern = await modernClient(t);
    const blamed = {
      code: -32012,
      message: expect.stringContaining(
        "Upstream 'raw' answered with a message Portico cannot use: the upstream sent an event id that cannot be sent back to resume its stream",
      ) as unknown,
    };
    try {
      const call = { name: 'raw-unusable_event_id', arguments: {} };
      await expect(session.callTool(call)).rejects.toMatchObject(blamed);
      await expect(modern.callTool(call)).rejects.toMatchObject(blamed);
    } finally {
      await session.close();
      await modern.close();
    }
  });

  it('does not reopen in a loop a session stream its upstream ends at once, asking for retry: 0', async () => {
    let opened = 0;
    const ending = createServer((req, res) => {
      if (req.method === 'GET') {
        opened += 1;
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end('retry: 0\n\n');
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const message = JSON.parse(body || '{}') as { id?: number; method?: string };
        if (message.id === undefined) return void res.writeHead(202).end();
        const result =
          message.method === 'initialize'
            ? {
                protocolVersion: '2025-06-18',
                capabilities: { tools: {} },
                serverInfo: { name: 'ending', version: '1.0.0' },
              }
            : message.method === 'tools/list'
              ? { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
              : { content: [{ type: 'text', text: 'fine' }] };
        res
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'one' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      });
    });
    await new Promise<void>((resolve) => ending.listen(0, '127.0.0.1', resolve));
    const { port } = ending.address() as AddressInfo;
    const session = await connectClient(t.baseUrl, { token: t.token });
    try {
      await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'ending', url: `http://127.0.0.1:${port}/mcp` })
        .expect(201);
      const called = await session.callTool({ name: 'ending-echo', arguments: {} });
      expect(called.content).toEqual([{ type: 'text', text: 'fine' }]);
      const before = opened;
      await new Promise((resolve) => setTimeout(resolve, 1600));
      // Empty streams in a row wait 0.5 s, 1 s, 2 s, …: a few in 1.6 s for each upstream session
      // (the sync's and the call's), not the thousands of a loop.
      expect(opened - before).toBeLessThan(10);
    } finally {
      await session.close();
      ending.closeAllConnections();
      await new Promise((resolve) => ending.close(resolve));
    }
  });

  it('says an endpoint that redirects is registered at the wrong URL, naming the right one', async () => {
    const redirecting = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `http://${req.headers.host}/mcp/` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const { port } = redirecting.address() as AddressInfo;
    try {
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'moved', url: `http://127.0.0.1:${port}/mcp` })
        .expect(201);
      expect(created.body.lastError).toBe(
        `the upstream answered with a redirect (HTTP 307 to http://127.0.0.1:${port}/mcp/), which Portico does not follow: register the URL it names`,
      );
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });
});

async function eventuallyAudited(
  t: TestApp,
  target: string,
  clientName: string,
): Promise<{ argumentsDigest: string | null; arguments: unknown }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const page = (await t.api().get('/api/v1/audit').query({ kind: 'mcp' }).expect(200)).body as {
      items: {
        target: string;
        clientName: string | null;
        argumentsDigest: string | null;
        arguments: unknown;
      }[];
    };
    const entry = page.items.find(
      (item) => item.target === target && item.clientName === clientName,
    );
    if (entry) return entry;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no audit entry for ${target} by ${clientName}`);
}
