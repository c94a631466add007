import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import { DATABASE_UNAVAILABLE } from '../../src/mcp/protocol/mcp-errors';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { factories } from '../support/factories';
import { connectClient, initializeRequest, postMcp } from '../support/mcp-client';
import { FaultProxy } from '../support/fault-proxy';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';
import { roleToken } from '../support/tokens';
import { waitFor } from '../support/wait-for';
import { DatabaseHealth } from '../../src/database/database-health';

/** Identities, tokens and grants are trusted this long: an outage here outlasts it. */
const AUTH_TTL_SECONDS = 1;

async function rows(url: string, sql: string): Promise<number> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(sql);
    return Number(result.rows[0]!.count);
  } finally {
    await client.end();
  }
}

/** Milliseconds `work` took. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describeOnPostgres('PostgreSQL going away (through a proxy the test controls)', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let t: TestApp;
  let upstream: UpstreamFixture;
  let admin: Client;
  let apiToken: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    const real = new URL(database.url);
    proxy = await FaultProxy.before(real.toString());
    t = await startTestApp({
      database: { ...database, url: proxy.proxied(database.url) },
      env: {
        AUTH_CACHE_TTL_SECONDS: String(AUTH_TTL_SECONDS),
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        DATABASE_QUERY_TIMEOUT_MS: '2000',
        AUDIT_FLUSH_INTERVAL_MS: '200',
      },
    });
    upstream = await startUpstream({ name: 'alpha', tools: [echoTool('echo', 'alpha')] });
    const make = factories(t.app);
    await make.tools(await make.gateway({ name: 'Alpha', url: upstream.url }), ['echo']);
    admin = await connectClient(t.baseUrl, { token: t.token, name: 'admin-login' });
    apiToken = await connectClient(t.baseUrl, {
      token: await roleToken(t, t.token, 'admin'),
      name: 'api-token',
    });
  });

  afterAll(async () => {
    await proxy?.setMode('pass');
    await admin?.close().catch(() => undefined);
    await apiToken?.close().catch(() => undefined);
    await t?.close();
    await upstream?.close();
    await proxy?.close();
    await database?.drop();
  });

  afterEach(async () => {
    await proxy.setMode('pass');
    await waitFor(
      async () => (await fetch(`${t.baseUrl}/readyz`)).status === 200,
      'the replica to be ready again',
      20_000,
      100,
    );
  });

  /** Calls through both pre-opened sessions, `rounds` times, spread over `ms`. */
  async function callThroughSessions(rounds: number, ms: number): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      for (const client of [admin, apiToken]) {
        const result = await client.callTool({ name: 'alpha-echo', arguments: { round } });
        expect(result.structuredContent).toMatchObject({ upstream: 'alpha', args: { round } });
      }
      await new Promise((resolve) => setTimeout(resolve, ms / rounds));
    }
  }

  async function expectNewWorkRefused(withinMs: number): Promise<void> {
    const initialize = await timed(() => postMcp(`${t.baseUrl}/mcp`, t.token, initializeRequest()));
    expect(initialize.value.status).toBe(503);
    expect(initialize.value.headers.get('retry-after')).toBe('5');
    const body = (await initialize.value.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(DATABASE_UNAVAILABLE);
    expect(body.error.message).toMatch(/database is unavailable/);
    expect(initialize.ms).toBeLessThan(withinMs);

    const rest = await timed(() => t.api().get('/api/v1/gateways'));
    expect(rest.value.status).toBe(503);
    expect(rest.value.headers['retry-after']).toBe('5');
    expect(rest.value.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(rest.value.body).toMatchObject({
      status: 503,
      code: 'database-unavailable',
      detail: expect.stringMatching(/database is unavailable/),
    });
    expect(rest.ms).toBeLessThan(withinMs);
  }

  it('refusing: pre-opened sessions keep calling past the identity TTL, new work gets 503 at once, and it recovers', async () => {
    await callThroughSessions(1, 0);
    const auditedBefore = await rows(
      database.url,
      `SELECT count(*) FROM audit_entry WHERE target = 'alpha-echo'`,
    );
    await proxy.setMode('refuse');

    await callThroughSessions(6, (AUTH_TTL_SECONDS + 2) * 1000);
    await expectNewWorkRefused(3000);
    const ready = await timed(() => request(t.baseUrl).get('/readyz'));
    expect(ready.value.status).toBe(503);
    expect(ready.ms).toBeLessThan(1000);

    await proxy.setMode('pass');
    await waitFor(
      async () => (await fetch(`${t.baseUrl}/readyz`)).status === 200,
      'readiness after the outage',
      20_000,
      100,
    );
    // What was called during the outage was buffered, and is written once the database is back.
    await waitFor(
      async () =>
        (await rows(
          database.url,
          `SELECT count(*) FROM audit_entry WHERE target = 'alpha-echo'`,
        )) >=
        auditedBefore + 12,
      'the audit entries of the outage to be written',
      20_000,
      200,
    );
    const fresh = await connectClient(t.baseUrl, { token: t.token, name: 'after' });
    await expect(fresh.callTool({ name: 'alpha-echo', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'alpha' },
    });
    await fresh.close();
    await callThroughSessions(1, 0);
  });

  it('black-holed: pre-opened sessions keep calling, /readyz says 503 within a second, new work fails fast, and it recovers', async () => {
    await callThroughSessions(1, 0);
    await proxy.setMode('blackhole');

    const ready = await timed(() => request(t.baseUrl).get('/readyz'));
    expect(ready.value.status).toBe(503);
    expect(ready.ms).toBeLessThan(1000);

    await callThroughSessions(6, (AUTH_TTL_SECONDS + 2) * 1000);
    // Once the database's own probe has failed twice, nothing waits for it any more: new work
    // is refused in milliseconds, not after the connect or query timeout.
    await waitFor(() => !t.app.get(DatabaseHealth).available, 'the probe to find it gone', 10_000);
    await expectNewWorkRefused(500);
    await callThroughSessions(2, 0);

    await proxy.setMode('pass');
    await waitFor(
      async () => (await fetch(`${t.baseUrl}/readyz`)).status === 200,
      'readiness after the partition',
      20_000,
      100,
    );
    const fresh = await connectClient(t.baseUrl, { token: t.token, name: 'after' });
    await expect(fresh.callTool({ name: 'alpha-echo', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'alpha' },
    });
    await fresh.close();
    await expect(t.api().get('/api/v1/gateways')).resolves.toMatchObject({ status: 200 });
  });

  it('connections reset under load: calls keep succeeding or fail with a clear error, and nothing hangs', async () => {
    const outcomes = { ok: 0, database: 0, other: [] as string[] };
    const load = (async () => {
      for (let round = 0; round < 40; round++) {
        await Promise.all(
          [admin, apiToken].map(async (client) => {
            try {
              await client.callTool({ name: 'alpha-echo', arguments: {} });
              outcomes.ok += 1;
            } catch (error) {
              const message = (error as Error).message;
              if (message.includes(String(DATABASE_UNAVAILABLE))) outcomes.database += 1;
              else outcomes.other.push(message);
            }
          }),
        );
      }
    })();
    for (let reset = 0; reset < 20; reset++) {
      proxy.reset();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await load;
    expect(outcomes.other).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(0);
    // The resets may have failed the database's own probe twice: the next probe lets work through.
    await waitFor(
      async () => (await t.api().get('/api/v1/gateways')).status === 200,
      'the REST API to answer again',
      10_000,
      100,
    );
  });
});
