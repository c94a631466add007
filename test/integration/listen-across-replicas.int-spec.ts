import { randomUUID } from 'node:crypto';
import { type JSONRPCNotification } from '@modelcontextprotocol/server';
import { type DataSource } from 'typeorm';
import { type Settings } from '../../src/config/settings';
import { createDataSource } from '../../src/database/data-source';
import { PgNotifyEventBus } from '../../src/events/pg-notify-event-bus';
import { type UpstreamList } from '../../src/events/event-bus';
import { type ListVersions } from '../../src/mcp/listen/list-versions';
import { ListenHub } from '../../src/mcp/listen/listen-hub';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

describeOnPostgres('modern listens across replicas (LISTEN/NOTIFY)', () => {
  let database: TestDatabase;
  const dataSources: DataSource[] = [];
  const buses: PgNotifyEventBus[] = [];
  const hubs: ListenHub[] = [];
  /** The tools version every replica reads: the catalogue in the database, as directories see it. */
  let toolsVersion = 't0';
  const versions = async (): Promise<ListVersions> => ({
    version: (kind: UpstreamList) => (kind === 'tools' ? toolsVersion : kind),
    holds: () => false,
  });

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    for (const hub of hubs) hub.onModuleDestroy();
    await Promise.all(buses.map((bus) => bus.onModuleDestroy()));
    await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
    await database.drop();
  });

  /** One replica: its own pool, its own listening connection, its own hub. */
  async function replica(): Promise<{ bus: PgNotifyEventBus; hub: ListenHub }> {
    const dataSource = createDataSource(database.url, 2);
    await dataSource.initialize();
    dataSources.push(dataSource);
    const config = {
      database: { mode: 'postgres', url: database.url },
      eventBus: {
        publishTimeoutMs: 1000,
        queueMaxBytes: 1024 * 1024,
        resyncWhileDownMs: 0,
        redisCommandTimeoutMs: 500,
        redisConnectTimeoutMs: 1000,
      },
    } as Settings;
    const bus = new PgNotifyEventBus(dataSource, config, config, { value: randomUUID() });
    await bus.onModuleInit();
    buses.push(bus);
    const hub = new ListenHub(bus, versions);
    hub.onModuleInit();
    hubs.push(hub);
    return { bus, hub };
  }

  it('tells a listen on one replica of a change published on the other', async () => {
    const a = await replica();
    const b = await replica();
    // Each bus delivers a resync once it listens, which the hubs announce after their debounce:
    // let that pass, so that only the change published on A can move what B's listen hears.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const crossed: string[] = [];
    b.bus.subscribe((event) => {
      if (event.type === 'servers.changed') crossed.push(...event.serverIds);
    });
    const heard: JSONRPCNotification[] = [];
    const opened = await b.hub.open({
      requestId: 41,
      scope: { kind: 'server', serverId: 's1' },
      owner: { subject: 'user:u1', tokenId: null },
      filter: { toolsListChanged: true },
      sink: { write: (message) => heard.push(message) > 0, end: () => undefined },
    });
    expect(opened.ok).toBe(true);

    toolsVersion = 't1';
    await a.bus.publish({ type: 'servers.changed', serverIds: ['s1'] });
    await waitFor(() => heard.length === 2, 'the listen on the other replica to hear it');
    expect(crossed).toEqual(['s1']);
    expect(heard.map((message) => message.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
    ]);
    expect(heard[1]?.params?._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 41 });
  });
});
