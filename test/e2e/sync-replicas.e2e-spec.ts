import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { GatewayWatchers } from '../../src/sync/gateway-watchers';
import { syncLockName } from '../../src/sync/sync.applier';
import { SyncLeadership } from '../../src/sync/sync-leadership';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

describeOnPostgres('sync with two replicas on one PostgreSQL', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  let firstRunning = true;
  let fixture: UpstreamFixture;
  let gatewayId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await startTestApp({ database });
    await waitFor(() => first.app.get(SyncLeadership).isLeader, 'the first replica to lead');
    second = await startTestApp({ database });
    fixture = await startUpstream({
      pageSize: 10,
      tools: Array.from({ length: 30 }, (_, i) => echoTool(`tool_${i}`, 'shared')),
      // Slow pages keep both replicas' syncs in flight together.
      onListPage: () => new Promise((resolve) => setTimeout(resolve, 100)),
    });
    gatewayId = (
      await first
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'Shared', url: fixture.url })
        .expect(201)
    ).body.id;
  });

  afterAll(async () => {
    await second?.close();
    if (firstRunning) await first?.close();
    await fixture?.close();
    await database?.drop();
  });

  async function toolRows(): Promise<{ total: number; distinct: number }> {
    const [row] = await second.app
      .get(DataSource)
      .query(
        `SELECT COUNT(*)::int AS total, COUNT(DISTINCT original_name)::int AS distinct FROM tool WHERE gateway_id = $1`,
        [gatewayId],
      );
    return row;
  }

  it('applies one diff when both replicas sync at once, without duplicates', async () => {
    expect(await toolRows()).toEqual({ total: 30, distinct: 30 });
    for (let i = 30; i < 50; i++) fixture.setTool(echoTool(`tool_${i}`, 'shared'));
    fixture.removeTool('tool_0');

    const responses = await Promise.all(
      [first, second, first, second].map((replica) =>
        replica.api().post(`/api/v1/gateways/${gatewayId}/sync`),
      ),
    );
    for (const response of responses) {
      expect([200, 409]).toContain(response.status);
      if (response.status === 409) expect(response.body.code).toBe('gateway.sync_in_progress');
    }
    const reports = responses.filter((r) => r.status === 200).map((r) => r.body);
    expect(reports.length).toBeGreaterThan(0);
    // Manual syncs on one replica share the sync running there, and so its report.
    const applied = [
      ...new Set(reports.filter((report) => report.added.length > 0).map((r) => JSON.stringify(r))),
    ].map((text) => JSON.parse(text));
    expect(applied).toHaveLength(1);
    expect(applied[0].added).toHaveLength(20);
    expect(applied[0].removed).toEqual(['tool_0']);
    for (const report of reports.filter((r) => r.added.length === 0)) {
      expect(report).toMatchObject({ added: [], updated: [], removed: [], unchanged: 49 });
    }
    expect(await toolRows()).toEqual({ total: 49, distinct: 49 });
  });

  it('answers 409 while another replica holds the gateway’s sync lock', async () => {
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [
        syncLockName(gatewayId),
      ]);
      fixture.setTool(echoTool('during_lock', 'shared'));
      const refused = await second.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(409);
      expect(refused.body).toMatchObject({ status: 409, code: 'gateway.sync_in_progress' });
      expect(await toolRows()).toEqual({ total: 49, distinct: 49 });
      await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [
        syncLockName(gatewayId),
      ]);
      const report = (await second.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200))
        .body;
      expect(report.added).toEqual(['during_lock']);
    } finally {
      await holder.end();
    }
  });

  it('keeps watching its upstreams when its bus connection is cut and comes back', async () => {
    await waitFor(() => fixture.openStreams === 1, 'the leader’s notification stream');
    const listeners = async (): Promise<number> =>
      (
        await first.app
          .get(DataSource)
          .query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN portico_events'`,
          )
      )[0].n;
    await first.app
      .get(DataSource)
      .query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN portico_events'`,
      );
    await waitFor(async () => (await listeners()) === 2, 'both replicas to listen again', 15_000);
    // The resync that follows re-reads every gateway; it must not stop the watches.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(first.app.get(GatewayWatchers).watchedGatewayIds).toEqual([gatewayId]);
    expect(fixture.openStreams).toBe(1);
  });

  it('watches upstreams from the leading replica only, and hands over when it stops', async () => {
    expect(second.app.get(SyncLeadership).isLeader).toBe(false);
    await waitFor(() => fixture.openStreams === 1, 'the leader’s notification stream');
    expect(first.app.get(GatewayWatchers).watchedGatewayIds).toEqual([gatewayId]);
    expect(second.app.get(GatewayWatchers).watchedGatewayIds).toEqual([]);

    firstRunning = false;
    await first.close();
    await waitFor(
      () => second.app.get(SyncLeadership).isLeader,
      'the second replica to lead',
      15_000,
    );
    await waitFor(() => fixture.openStreams === 1, 'the new leader’s notification stream');
    expect(second.app.get(GatewayWatchers).watchedGatewayIds).toEqual([gatewayId]);

    fixture.setTool(echoTool('after_handover', 'shared'));
    await fixture.notifyToolsChanged();
    await waitFor(
      async () =>
        (await second.api().get('/api/v1/tools/by-name/shared-after_handover')).status === 200,
      'the new leader to sync on list_changed',
    );
  });
});
