import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type Settings } from '../../src/config/settings';
import { createDataSource } from '../../src/database/data-source';
import { PgNotifyEventBus } from '../../src/events/pg-notify-event-bus';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { FaultProxy } from '../support/fault-proxy';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { catalogChange, heard, timed } from '../support/bus-events';

const PUBLISH_TIMEOUT_MS = 300;

describeOnPostgres('the LISTEN/NOTIFY bus when PostgreSQL goes away', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  const dataSources: DataSource[] = [];
  const buses: PgNotifyEventBus[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  beforeEach(async () => {
    proxy = await FaultProxy.before(database.url);
  });

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.onModuleDestroy()));
    await proxy.setMode('pass');
    await Promise.all(dataSources.splice(0).map((dataSource) => dataSource.destroy()));
    await proxy.close();
  });

  afterAll(async () => {
    await database.drop();
  });

  /** A replica's bus on `url`: its listening connection and its pool both go there. */
  async function bus(url: string): Promise<PgNotifyEventBus> {
    const dataSource = createDataSource(url, 2);
    await dataSource.initialize();
    dataSources.push(dataSource);
    const config = {
      database: { mode: 'postgres', url },
      eventBus: {
        publishTimeoutMs: PUBLISH_TIMEOUT_MS,
        queueMaxBytes: 1024 * 1024,
        resyncWhileDownMs: 0,
        redisCommandTimeoutMs: 500,
        redisConnectTimeoutMs: 1000,
      },
    } as Settings;
    const replica = new PgNotifyEventBus(dataSource, config, config, { value: randomUUID() });
    await replica.onModuleInit();
    buses.push(replica);
    return replica;
  }

  it('publishes within its bound while packets are dropped, notices the silent connection, and resyncs once back', async () => {
    const cut = await bus(proxy.proxied(database.url));
    const cutHeard = heard(cut);
    const sibling = heard(await bus(database.url));

    await proxy.setMode('blackhole');
    expect(await timed(cut.publish(catalogChange('during-1')))).toBeLessThan(
      PUBLISH_TIMEOUT_MS + 1000,
    );
    expect(await timed(cut.publish(catalogChange('during-2')))).toBeLessThan(1000);
    // The listening connection's health check times out, and the bus knows it hears nothing.
    await waitFor(() => !cut.state().listening, 'the cut replica to notice', 10_000);

    await proxy.setMode('pass');
    await waitFor(() => cut.state().listening, 'the cut replica to listen again', 10_000);
    await waitFor(() => sibling.includes('during-2'), 'the sibling to hear what was queued');
    expect([...new Set(sibling)]).toEqual(['during-1', 'during-2']);
    expect(cutHeard).toEqual(['during-1', 'during-2', '*']);
  });

  it('answers publishes while PostgreSQL refuses, and drops every cache once it listens again', async () => {
    const cut = await bus(proxy.proxied(database.url));
    const cutHeard = heard(cut);
    const sibling = await bus(database.url);
    const siblingHeard = heard(sibling);

    await proxy.setMode('refuse');
    await waitFor(() => !cut.state().listening, 'the cut replica to notice');
    expect(await timed(cut.publish(catalogChange('from-cut')))).toBeLessThan(
      PUBLISH_TIMEOUT_MS + 1000,
    );
    await sibling.publish(catalogChange('missed'));

    await proxy.setMode('pass');
    await waitFor(() => cutHeard.includes('*'), 'the cut replica to resync');
    await waitFor(() => siblingHeard.includes('from-cut'), 'the sibling to hear the queued event');
    expect(cutHeard).toEqual(['from-cut', '*']);
  });
});
