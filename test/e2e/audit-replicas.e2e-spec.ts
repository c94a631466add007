import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DataSource } from 'typeorm';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { factories } from '../support/factories';
import { connectClient } from '../support/mcp-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';

const CLIENTS_PER_REPLICA = 4;
const CALLS_PER_CLIENT = 40;

describeOnPostgres('Audit trail across two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let upstream: UpstreamFixture;
  let dataSource: DataSource | null = null;

  beforeAll(async () => {
    // Replica b writes only when it stops: what it buffered must not be lost then either.
    a = await startTestApp({ env: { AUDIT_FLUSH_INTERVAL_MS: '50', AUDIT_ARGUMENTS: 'full' } });
    b = await startReplica(a, { AUDIT_FLUSH_INTERVAL_MS: '60000', AUDIT_ARGUMENTS: 'full' });
    upstream = await startUpstream({ name: 'load', tools: [echoTool('work', 'load')] });
    const make = factories(a.app);
    await make.tools(await make.gateway({ name: 'Load', url: upstream.url }), ['work']);
  });

  let stopped = false;

  afterAll(async () => {
    await dataSource?.destroy();
    if (!stopped) {
      await b?.close();
      await a?.app.close();
    }
    await a?.database.drop();
    await upstream?.close();
  });

  it('records every call exactly once, whichever replica served it', async () => {
    const calls = async (replica: TestApp, name: string): Promise<void> => {
      const clients: Client[] = [];
      for (let c = 0; c < CLIENTS_PER_REPLICA; c++)
        clients.push(await connectClient(replica.baseUrl, { token: a.token, name }));
      await Promise.all(
        clients.map(async (client, c) => {
          for (let i = 0; i < CALLS_PER_CLIENT; i++)
            await client.callTool({ name: 'load-work', arguments: { n: `${name}-${c}-${i}` } });
        }),
      );
      await Promise.all(clients.map((client) => client.close()));
    };
    await Promise.all([calls(a, 'via-a'), calls(b, 'via-b')]);
    const url = a.database.url;
    await b.close();
    await a.app.close();
    stopped = true;
    dataSource = new DataSource({ type: 'postgres', url });
    await dataSource.initialize();
    const rows: { n: string; client: string; replica: string; outcome: string }[] =
      await dataSource.query(
        `SELECT arguments->>'n' AS n, client_name AS client, replica, outcome
           FROM audit_entry WHERE action = 'tools/call'`,
      );
    const perReplica = CLIENTS_PER_REPLICA * CALLS_PER_CLIENT;
    expect(rows).toHaveLength(2 * perReplica);
    expect(new Set(rows.map((row) => row.n)).size).toBe(2 * perReplica);
    expect(rows.filter((row) => row.client === 'via-a')).toHaveLength(perReplica);
    expect(rows.filter((row) => row.client === 'via-b')).toHaveLength(perReplica);
    expect(new Set(rows.map((row) => row.replica)).size).toBe(2);
    expect(rows.every((row) => row.outcome === 'ok')).toBe(true);
    expect(upstream.calls.filter((call) => call.name === 'work')).toHaveLength(2 * perReplica);
  });
});
