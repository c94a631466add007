import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DataSource } from 'typeorm';
import { type EmbeddingsFixture, startEmbeddingsServer } from '../fixtures/embeddings-server';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, eventually } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

const API_KEY = 'sk-test-provider-secret';

function catalogue() {
  return [
    echoTool('send_email', 'office', { description: 'Send an email message to a recipient' }),
    echoTool('get_weather', 'office', { description: 'Get the weather forecast for a city' }),
    echoTool('create_invoice', 'office', { description: 'Create an invoice for a customer' }),
    ...['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta'].map((name) =>
      echoTool(`list_${name}`, 'office', { description: `List the ${name} records` }),
    ),
  ];
}

async function start(embeddings: EmbeddingsFixture, upstream: UpstreamFixture): Promise<TestApp> {
  const t = await startTestApp({
    env: {
      MCP_TOOL_SEARCH: 'true',
      EMBEDDINGS_URL: embeddings.url,
      EMBEDDINGS_MODEL: 'concepts-1',
      EMBEDDINGS_API_KEY: API_KEY,
      EMBEDDINGS_QUERY_TIMEOUT_MS: '200',
    },
  });
  await t.api().post('/api/v1/gateways').send({ name: 'Office', url: upstream.url }).expect(201);
  return t;
}

async function hits(client: Client, query: string): Promise<string[]> {
  const result = await client.callTool({ name: 'tool_search', arguments: { query } });
  return (result.structuredContent as { hits: { name: string }[] }).hits.map((hit) => hit.name);
}

async function fallbacks(t: TestApp, reason: string): Promise<number> {
  const response = await fetch(`${t.baseUrl}/metrics`, {
    headers: { Authorization: `Bearer ${t.token}` },
  });
  const match = new RegExp(
    `portico_tool_search_provider_fallbacks_total\\{reason="${reason}"\\} (\\d+)`,
  ).exec(await response.text());
  return match ? Number(match[1]) : 0;
}

describe('tool search with an embeddings provider', () => {
  let upstream: UpstreamFixture;
  let embeddings: EmbeddingsFixture;
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'office', tools: catalogue() });
    embeddings = await startEmbeddingsServer();
    t = await start(embeddings, upstream);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await upstream?.close();
    await embeddings?.close();
  });

  it('finds a tool by what only the provider understands, once it has embedded the tools', async () => {
    // "zorblax" is a word for mail to the provider alone; no tool text and no word list has it.
    await eventually(async () =>
      expect((await hits(client, 'zorblax to Alice'))[0]).toBe('office-send_email'),
    );
    const indexed = embeddings.requests.find((request) => request.input.length > 1)!;
    expect(indexed.model).toBe('concepts-1');
    expect(indexed.authorization).toBe(`Bearer ${API_KEY}`);
    expect(indexed.input).toHaveLength(10);
    expect(indexed.input).toContainEqual(
      expect.stringMatching(/^office-send_email\nSend an email message to a recipient$/),
    );
    expect(embeddings.requests.some((request) => request.input[0] === 'zorblax to Alice')).toBe(
      true,
    );
  });

  it('stores the tool vectors for every replica, as pgvector where the database has it', async () => {
    const dataSource = t.app.get(DataSource);
    const rows = await dataSource.query<{ model: string; dimensions: number; type: string }[]>(
      `SELECT model, dimensions, format_type(a.atttypid, a.atttypmod) AS type
         FROM tool_embedding, pg_attribute a
        WHERE a.attrelid = 'tool_embedding'::regclass AND a.attname = 'embedding'`,
    );
    expect(rows).toHaveLength(10);
    expect(rows.every((row) => row.model === 'concepts-1' && row.dimensions === 4)).toBe(true);
    const [{ available }] = await dataSource.query<[{ available: boolean }]>(
      `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS available`,
    );
    expect(rows[0]!.type).toBe(available ? 'vector' : 'real[]');
    if (!t.database.onPostgres) expect(available).toBe(true);
  });

  it('ranks without the provider when it is slow, within the budget, and counts it', async () => {
    embeddings.mode = 'slow';
    const timeouts = await fallbacks(t, 'timeout');
    const open = await fallbacks(t, 'circuit_open');
    expect((await hits(client, 'send an email message'))[0]).toBe('office-send_email');
    expect(await fallbacks(t, 'timeout')).toBe(timeouts + 1);
    // After a failure, searches leave the provider alone for a while instead of waiting again.
    const asked = embeddings.requests.length;
    expect((await hits(client, 'weather forecast for Oslo'))[0]).toBe('office-get_weather');
    expect(await fallbacks(t, 'circuit_open')).toBe(open + 1);
    expect(embeddings.requests).toHaveLength(asked);
    embeddings.mode = 'ok';
  });
});

describe('tool search when the embeddings provider is down from the start', () => {
  let upstream: UpstreamFixture;
  let embeddings: EmbeddingsFixture;
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'office', tools: catalogue() });
    embeddings = await startEmbeddingsServer();
    embeddings.mode = 'down';
    t = await start(embeddings, upstream);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await upstream?.close();
    await embeddings?.close();
  });

  it('serves search from the embedded rankers and counts each search that lacked tool vectors', async () => {
    expect((await hits(client, 'create an invoice for ACME'))[0]).toBe('office-create_invoice');
    await eventually(() => expect(embeddings.requests.length).toBeGreaterThan(0));
    const missing = await fallbacks(t, 'tool_vectors_missing');
    expect((await hits(client, 'send an email message'))[0]).toBe('office-send_email');
    expect(await fallbacks(t, 'tool_vectors_missing')).toBe(missing + 1);
    const [stored] = await t.app
      .get(DataSource)
      .query<[{ n: number }]>('SELECT count(*)::int AS n FROM tool_embedding');
    expect(stored.n).toBe(0);
  });
});
