import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/load-config';
import { type Settings } from '../../src/config/settings';
import { createDataSource } from '../../src/database/data-source';
import { migrate } from '../../src/database/migrate';
import { type PorticoEvent } from '../../src/events/event-bus';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { PgNotifyEventBus } from '../../src/events/pg-notify-event-bus';
import { type McpScope } from '../../src/mcp/protocol/mcp-scope';
import { McpPromotion } from '../../src/mcp/state/mcp-promotion.entity';
import { type RequestOwner } from '../../src/mcp/protocol/mcp-request';
import { ownerKey } from '../../src/mcp/search/promotion-owner';
import { PromotionStore } from '../../src/mcp/search/promotion-store';
import { SessionStore } from '../../src/mcp/sessions/session.store';
import { ToolNameQuery } from '../../src/virtual-names/tool-name.query';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { tempDataDir } from '../support/temp-dir';
import { waitFor } from '../support/wait-for';

const S1: McpScope = { kind: 'server', serverId: '00000000-0000-4000-8000-000000000001' };
const DAY_MS = 24 * 3600 * 1000;

type SessionOwner = Extract<RequestOwner, { kind: 'session' }>;
type PrincipalOwner = Extract<RequestOwner, { kind: 'principal' }>;

describe('the promotion store (sessions and principals, one table)', () => {
  let db: TestDataSource;
  /** One bus between the stores: they stand for replicas that hear each other. */
  let bus: InProcessEventBus;
  let sessions: SessionStore;
  const replicas: PromotionStore[] = [];
  const events: PorticoEvent[] = [];
  let subjects = 0;

  beforeAll(async () => {
    db = await openTestDataSource();
    bus = new InProcessEventBus();
    bus.subscribe((event) => events.push(event));
    sessions = new SessionStore(db.dataSource, bus, loadConfig({ DATA_DIR: tempDataDir() }));
  });

  afterAll(async () => {
    for (const replica of replicas) replica.onModuleDestroy();
    await db.close();
  });

  function replica(onBus = bus): PromotionStore {
    const store = new PromotionStore(db.dataSource, onBus);
    store.onModuleInit();
    replicas.push(store);
    return store;
  }

  async function session(serverId: string | null = null): Promise<SessionOwner> {
    const created = await sessions.create({
      id: randomUUID(),
      serverId,
      subject: 'admin',
      userId: null,
      transport: 'streamable-http',
      protocolVersion: '2025-11-25',
      initializeParams: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'test', version: '1' },
      },
      logLevel: null,
      subscriptions: [],
      exchangeable: false,
    });
    return { kind: 'session', sessionId: created.id };
  }

  const principal = (scope: McpScope = S1): PrincipalOwner => ({
    kind: 'principal',
    scope,
    subject: `user:${++subjects}`,
  });

  const stored = async (owner: RequestOwner) => {
    const row = await db.dataSource
      .getRepository(McpPromotion)
      .findOneBy({ owner: ownerKey(owner) });
    return row && { catalogHash: row.catalogHash, names: row.names };
  };

  const OWNERS: [string, () => Promise<RequestOwner>][] = [
    ['a 2025 session', () => session()],
    ['a principal in its scope', async () => principal()],
  ];

  describe.each(OWNERS)('for %s', (_kind, makeOwner) => {
    it('stores the first promotion, merges under the same hash and replaces under a new one', async () => {
      const store = replica();
      const owner = await makeOwner();
      expect(await store.promote(owner, 'h1', ['b', 'a'])).toEqual({
        promotions: { catalogHash: 'h1', names: ['a', 'b'] },
        changed: true,
      });
      await store.promote(owner, 'h1', ['c']);
      expect(await stored(owner)).toEqual({ catalogHash: 'h1', names: ['a', 'b', 'c'] });
      expect(await store.promote(owner, 'h1', ['a'])).toEqual({
        promotions: { catalogHash: 'h1', names: ['a', 'b', 'c'] },
        changed: false,
      });
      await store.promote(owner, 'h2', ['z']);
      expect(await stored(owner)).toEqual({ catalogHash: 'h2', names: ['z'] });
    });

    it('announces a change under the owner key, and nothing when nothing changed', async () => {
      const store = replica();
      const owner = await makeOwner();
      events.length = 0;
      await store.promote(owner, 'h1', ['a']);
      expect(events).toEqual([{ type: 'mcp.promotions.changed', owner: ownerKey(owner) }]);
      await store.promote(owner, 'h1', ['a']);
      await store.promote(owner, 'h1', []);
      expect(events).toHaveLength(1);
    });

    it('reads from its own copy once cached, the database only when asked for fresh', async () => {
      const store = replica();
      const owner = await makeOwner();
      const other = await makeOwner();
      await store.promote(owner, 'h1', ['a']);
      expect(await store.promotions(owner)).toEqual({ catalogHash: 'h1', names: ['a'] });
      expect(await store.promotions(other)).toBeNull();
      // Changed behind every replica's back: a cached read does not see it, so it went nowhere
      // near the database; a fresh one does.
      await db.dataSource.query(`UPDATE mcp_promotion SET names = '["x"]' WHERE owner = $1`, [
        ownerKey(owner),
      ]);
      await db.dataSource.query(
        `INSERT INTO mcp_promotion (owner, session_id, catalog_hash, names)
         VALUES ($1, $2, 'h1', '["y"]')`,
        [ownerKey(other), other.kind === 'session' ? other.sessionId : null],
      );
      expect(await store.promotions(owner)).toEqual({ catalogHash: 'h1', names: ['a'] });
      expect(await store.promotions(other)).toBeNull();
      expect(await store.promotions(owner, true)).toEqual({ catalogHash: 'h1', names: ['x'] });
      expect(await store.promotions(other, true)).toEqual({ catalogHash: 'h1', names: ['y'] });
      expect(await store.promotions(other)).toEqual({ catalogHash: 'h1', names: ['y'] });
    });

    it('lets every replica see at once a promotion made on another', async () => {
      const here = replica();
      const there = replica();
      const alone = replica(new InProcessEventBus());
      const owner = await makeOwner();
      expect(await here.promotions(owner)).toBeNull();
      expect(await alone.promotions(owner)).toBeNull();
      await there.promote(owner, 'h1', ['a']);
      expect(await here.promotions(owner)).toEqual({ catalogHash: 'h1', names: ['a'] });
      // A replica that did not hear lags until it asks fresh: the bus is what makes the difference.
      expect(await alone.promotions(owner)).toBeNull();
      expect(await alone.promotions(owner, true)).toEqual({ catalogHash: 'h1', names: ['a'] });
    });

    it('does not keep a read that raced a change announced meanwhile', async () => {
      const store = replica();
      const owner = await makeOwner();
      const racing = store.promotions(owner);
      // Heard while the read is on its way: what it brings back may predate the change.
      await bus.publish({ type: 'mcp.promotions.changed', owner: ownerKey(owner) });
      expect(await racing).toBeNull();
      await db.dataSource.query(
        `INSERT INTO mcp_promotion (owner, session_id, catalog_hash, names)
         VALUES ($1, $2, 'h1', '["a"]')`,
        [ownerKey(owner), owner.kind === 'session' ? owner.sessionId : null],
      );
      expect(await store.promotions(owner)).toEqual({ catalogHash: 'h1', names: ['a'] });
    });

    it('loses no name when searches of one owner promote at once on several replicas', async () => {
      const stores = Array.from({ length: 4 }, () => replica(new InProcessEventBus()));
      const owner = await makeOwner();
      const names = Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
      await Promise.all(names.map((name, i) => stores[i % 4]!.promote(owner, 'h1', [name])));
      expect(await stored(owner)).toEqual({ catalogHash: 'h1', names });
    });
  });

  it('keeps every owner apart: sessions, principals and their scopes', async () => {
    const store = replica();
    const alice = principal();
    const aliceEverywhere: PrincipalOwner = { ...alice, scope: { kind: 'all' } };
    const bob = principal();
    const first = await session();
    const second = await session();
    await store.promote(alice, 'h1', ['a']);
    await store.promote(aliceEverywhere, 'h1', ['everywhere']);
    await store.promote(first, 'h1', ['s']);
    expect(await store.promotions(alice, true)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await store.promotions(aliceEverywhere, true)).toEqual({
      catalogHash: 'h1',
      names: ['everywhere'],
    });
    expect(await store.promotions(first, true)).toEqual({ catalogHash: 'h1', names: ['s'] });
    expect(await store.promotions(bob, true)).toBeNull();
    expect(await store.promotions(second, true)).toBeNull();
  });

  it('has nothing for a session that does not exist, and stores nothing for it', async () => {
    const store = replica();
    const ghost: RequestOwner = { kind: 'session', sessionId: 'no-such-session' };
    events.length = 0;
    expect(await store.promote(ghost, 'h1', ['a'])).toBeNull();
    expect(await store.promotions(ghost, true)).toBeNull();
    expect(await stored(ghost)).toBeNull();
    expect(events).toEqual([]);
  });

  it("removes a session's promotions when the session ends, on every replica", async () => {
    const here = replica();
    const there = replica();
    const owner = await session();
    const { sessionId } = owner;
    await here.promote(owner, 'h1', ['a']);
    for (const store of [here, there])
      expect(await store.promotions(owner)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await sessions.end(sessionId)).toBe(true);
    expect(await stored(owner)).toBeNull();
    // Neither replica keeps serving its copy.
    expect(await here.promotions(owner)).toBeNull();
    expect(await there.promotions(owner)).toBeNull();
    expect(await here.promote(owner, 'h1', ['b'])).toBeNull();
    expect(await stored(owner)).toBeNull();
  });

  it("removes a session's promotions when its virtual server is deleted", async () => {
    const store = replica();
    const serverId = randomUUID();
    await db.dataSource.query(`INSERT INTO server (id, name) VALUES ($1, 'Doomed')`, [serverId]);
    const owner = await session(serverId);
    const survivor = await session();
    await store.promote(owner, 'h1', ['a']);
    await store.promote(survivor, 'h1', ['a']);
    await db.dataSource.query(`DELETE FROM server WHERE id = $1`, [serverId]);
    expect(await stored(owner)).toBeNull();
    expect(await stored(survivor)).toEqual({ catalogHash: 'h1', names: ['a'] });
  });

  it("purges principals' promotions untouched for 30 days, and no session's", async () => {
    const store = replica();
    const stale = principal();
    const recent = principal();
    const idle = await session();
    for (const owner of [stale, recent, idle]) await store.promote(owner, 'h1', ['a']);
    await db.dataSource.query(`UPDATE mcp_promotion SET updated_at = $1 WHERE owner = ANY($2)`, [
      new Date(Date.now() - 31 * DAY_MS),
      [ownerKey(stale), ownerKey(idle)],
    ]);
    await db.dataSource.query(`UPDATE mcp_promotion SET updated_at = $1 WHERE owner = $2`, [
      new Date(Date.now() - 29 * DAY_MS),
      ownerKey(recent),
    ]);
    await store.removeStale();
    expect(await stored(stale)).toBeNull();
    expect(await stored(recent)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await stored(idle)).toEqual({ catalogHash: 'h1', names: ['a'] });
  });

  it('refuses a row whose owner key and session disagree', async () => {
    const owner = await session();
    const { sessionId } = owner;
    const insert = (key: string, session: string | null) =>
      db.dataSource.query(
        `INSERT INTO mcp_promotion (owner, session_id, catalog_hash, names) VALUES ($1, $2, 'h', '[]')`,
        [key, session],
      );
    await expect(insert(ownerKey(owner), null)).rejects.toThrow(/mcp_promotion_owner_check/);
    await expect(insert('principal:all:user:x', sessionId)).rejects.toThrow(
      /mcp_promotion_owner_check/,
    );
    await expect(insert(`session:${randomUUID()}`, sessionId)).rejects.toThrow(
      /mcp_promotion_owner_check/,
    );
  });
});

describeOnPostgres('the promotion store across replicas (LISTEN/NOTIFY)', () => {
  let database: TestDatabase;
  const dataSources: DataSource[] = [];
  const buses: PgNotifyEventBus[] = [];
  const stores: PromotionStore[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    for (const store of stores) store.onModuleDestroy();
    await Promise.all(buses.map((bus) => bus.onModuleDestroy()));
    await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
    await database.drop();
  });

  /** One replica: its own pool, its own listening connection, its own store. */
  async function replica(): Promise<{ bus: PgNotifyEventBus; store: PromotionStore }> {
    const dataSource = createDataSource(database.url, 2);
    await dataSource.initialize();
    dataSources.push(dataSource);
    if (dataSources.length === 1) {
      const names = new ToolNameQuery(loadConfig({ DATA_DIR: tempDataDir() }));
      await migrate(dataSource, names, true);
    }
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
    const store = new PromotionStore(dataSource, bus);
    store.onModuleInit();
    stores.push(store);
    return { bus, store };
  }

  it('drops the copy on the other replica as soon as the change arrives there', async () => {
    const a = await replica();
    const b = await replica();
    // Each bus delivers a resync once it listens: let that pass before caching anything.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const heard: PorticoEvent[] = [];
    b.bus.subscribe((event) => {
      if (event.type === 'mcp.promotions.changed') heard.push(event);
    });
    const alice: RequestOwner = { kind: 'principal', scope: S1, subject: 'user:alice' };
    expect(await b.store.promotions(alice)).toBeNull();
    await a.store.promote(alice, 'h1', ['a']);
    await waitFor(() => heard.length === 1, 'the change to reach the other replica');
    expect(heard).toEqual([{ type: 'mcp.promotions.changed', owner: ownerKey(alice) }]);
    expect(await b.store.promotions(alice)).toEqual({ catalogHash: 'h1', names: ['a'] });
  });
});
