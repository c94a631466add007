import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app';

// What an upstream says that PostgreSQL cannot store (a NUL character, an unpaired UTF-16
// surrogate) must not lose the write it is part of: the gateway's failure is still recorded, and
// a skill entry carrying such text is refused on its own while the rest of the sync is stored.

interface Message {
  id?: number;
  method?: string;
  params?: { protocolVersion?: string };
}

/** A 2025 upstream answering JSON; `answer` gives a message's result, or writes the response. */
async function startUpstream(
  answer: (message: Message, res: ServerResponse) => Record<string, unknown> | null,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(body || '{}') as Message;
      if (req.method !== 'POST' || message.id === undefined) return void res.writeHead(202).end();
      const result = answer(message, res);
      if (result === null) return;
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const digest = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

function skill(
  name: string,
  frontmatter: Record<string, unknown> = {},
  meta?: unknown,
  root = 'skill://',
) {
  const uri = `${root}${name}/SKILL.md`;
  return {
    uri,
    frontmatter: { name, description: `${name} skill`, ...frontmatter },
    resources: [{ uri, digest: digest(name), size: name.length }],
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

describe('an upstream whose words PostgreSQL cannot store', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { SYNC_INTERVAL_SECONDS: '0' } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each([
    [
      'an HTTP error',
      (res: ServerResponse) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end('boom\u0000 here \ud800'),
      'HTTP 500: boom here \uFFFD',
    ],
    [
      'a JSON-RPC error',
      (res: ServerResponse, id: number | undefined) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: -32000, message: 'bad\u0000 news \udc00' },
          }),
        ),
      'bad news \uFFFD',
    ],
  ])('records the failure of one answering with %s, repaired', async (what, fail, said) => {
    const upstream = await startUpstream((message, res) => {
      fail(res, message.id);
      return null;
    });
    try {
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: what.replace(/\W+/g, '-'), url: upstream.url })
        .expect(201);
      expect(created.body.status).toBe('failing');
      expect(created.body.lastError).toContain(said);
      const read = await t.api().get(`/api/v1/gateways/${created.body.id}`).expect(200);
      expect(read.body).toMatchObject({ status: 'failing', lastError: created.body.lastError });
    } finally {
      await upstream.close();
    }
  });

  it('refuses the skill entries it cannot store and stores the rest of the sync', async () => {
    const results: Record<string, Record<string, unknown>> = {
      'tools/list': { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
      'skills/list': {
        skills: [
          skill('kept'),
          skill('nul-frontmatter', { description: 'a\u0000b' }),
          skill('surrogate-meta', {}, { ['key\ud800']: 1 }),
          skill('nul-path', {}, undefined, 'skill://a\u0000b/'),
          'not an entry',
        ],
      },
    };
    const upstream = await startUpstream((message) =>
      message.method === 'initialize'
        ? {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/skills': {} } },
            serverInfo: { name: 'wordy', version: '1.0.0' },
          }
        : (results[message.method ?? ''] ?? {}),
    );
    try {
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'wordy', url: upstream.url })
        .expect(201);
      expect(created.body).toMatchObject({ status: 'healthy', lastError: null });
      // The report says which entries were refused and why; a name it cannot store is repaired.
      expect(created.body.lastSyncReport.skills).toEqual({
        added: ['skill://kept/SKILL.md'],
        updated: [],
        removed: [],
        unchanged: 0,
        conflicts: [
          {
            name: 'skill://nul-frontmatter/SKILL.md',
            reason: 'the definition contains NUL characters (U+0000)',
          },
          {
            name: 'skill://surrogate-meta/SKILL.md',
            reason: 'the definition contains unpaired UTF-16 surrogates',
          },
          {
            name: 'skill://ab/nul-path/SKILL.md',
            reason: 'the definition contains NUL characters (U+0000)',
          },
          { name: 'entry 5', reason: 'the entry is not an object' },
        ],
      });
      const read = await t.api().get(`/api/v1/gateways/${created.body.id}`).expect(200);
      expect(read.body.lastSyncReport.skills).toEqual(created.body.lastSyncReport.skills);
      const tools = await t.api().get('/api/v1/tools').query({ gatewayId: created.body.id });
      expect(tools.body.items.map((tool: { name: string }) => tool.name)).toEqual(['wordy-echo']);
      const skills = await t.api().get('/api/v1/skills').query({ gatewayId: created.body.id });
      expect(
        skills.body.items.map((entry: { originalName: string }) => entry.originalName),
      ).toEqual(['kept']);
    } finally {
      await upstream.close();
    }
  });
});
