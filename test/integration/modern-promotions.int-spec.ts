import { type PorticoEvent } from '../../src/events/event-bus';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { type McpScope, scopeKey } from '../../src/mcp/protocol/mcp-scope';
import { McpPromotion } from '../../src/mcp/search/mcp-promotion.entity';
import { ModernPromotions, type PrincipalOwner } from '../../src/mcp/search/modern-promotions';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

const S1: McpScope = { kind: 'server', serverId: '00000000-0000-4000-8000-000000000001' };
const S1_KEY = scopeKey(S1);

describe('tool-search promotions of modern clients (per principal and scope)', () => {
  let db: TestDataSource;
  /** One bus between the stores: they stand for replicas that hear each other. */
  let bus: InProcessEventBus;
  const replicas: ModernPromotions[] = [];
  const events: PorticoEvent[] = [];
  let owners = 0;

  beforeAll(async () => {
    db = await openTestDataSource();
    bus = new InProcessEventBus();
    bus.subscribe((event) => events.push(event));
  });

  afterAll(async () => {
    for (const replica of replicas) replica.onModuleDestroy();
    await db.close();
  });

  function replica(onBus = bus): ModernPromotions {
    const store = new ModernPromotions(db.dataSource, onBus);
    store.onModuleInit();
    replicas.push(store);
    return store;
  }

  const owner = (scope: McpScope = S1): PrincipalOwner => ({
    scope,
    subject: `user:${++owners}`,
  });

  const stored = async ({ subject }: PrincipalOwner, scope = S1_KEY) => {
    const row = await db.dataSource.getRepository(McpPromotion).findOneBy({ scope, subject });
    return row && { catalogHash: row.catalogHash, names: row.names };
  };

  it('stores the first promotion, merges under the same hash and replaces under a new one', async () => {
    const store = replica();
    const alice = owner();
    expect(await store.promote(alice, 'h1', ['b', 'a'])).toEqual({
      promotions: { catalogHash: 'h1', names: ['a', 'b'] },
      changed: true,
    });
    await store.promote(alice, 'h1', ['c']);
    expect(await stored(alice)).toEqual({ catalogHash: 'h1', names: ['a', 'b', 'c'] });
    expect(await store.promote(alice, 'h1', ['a'])).toMatchObject({ changed: false });
    await store.promote(alice, 'h2', ['z']);
    expect(await stored(alice)).toEqual({ catalogHash: 'h2', names: ['z'] });
  });

  it('keeps each principal and each scope apart', async () => {
    const store = replica();
    const alice = owner();
    const bob = owner();
    await store.promote(alice, 'h1', ['a']);
    await store.promote({ ...alice, scope: { kind: 'all' } }, 'h1', ['everywhere']);
    expect(await store.promotions(bob, true)).toBeNull();
    expect(await store.promotions(alice, true)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await store.promotions({ ...alice, scope: { kind: 'all' } }, true)).toEqual({
      catalogHash: 'h1',
      names: ['everywhere'],
    });
  });

  it('announces a change to every replica, and nothing when nothing changed', async () => {
    const store = replica();
    const alice = owner();
    events.length = 0;
    await store.promote(alice, 'h1', ['a']);
    expect(events).toEqual([
      {
        type: 'mcp.promotions.changed',
        scope: S1_KEY,
        subject: alice.subject,
      },
    ]);
    await store.promote(alice, 'h1', ['a']);
    await store.promote(alice, 'h1', []);
    expect(events).toHaveLength(1);
  });

  it('reads from its own copy once cached, the database only when asked for fresh', async () => {
    const store = replica();
    const alice = owner();
    const carol = owner();
    await store.promote(alice, 'h1', ['a']);
    expect(await store.promotions(alice)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await store.promotions(carol)).toBeNull();
    // Changed behind every replica's back: a cached read does not see it, so it went nowhere near
    // the database; a fresh one does.
    await db.dataSource.query(`UPDATE mcp_promotion SET names = '["x"]' WHERE subject = $1`, [
      alice.subject,
    ]);
    await db.dataSource.query(
      `INSERT INTO mcp_promotion (scope, subject, catalog_hash, names) VALUES ($1, $2, 'h1', '["y"]')`,
      [S1_KEY, carol.subject],
    );
    expect(await store.promotions(alice)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await store.promotions(carol)).toBeNull();
    expect(await store.promotions(alice, true)).toEqual({ catalogHash: 'h1', names: ['x'] });
    expect(await store.promotions(carol, true)).toEqual({ catalogHash: 'h1', names: ['y'] });
  });

  it('lets every replica see a promotion made on another', async () => {
    const here = replica();
    const there = replica();
    const alone = replica(new InProcessEventBus());
    const alice = owner();
    expect(await here.promotions(alice)).toBeNull();
    expect(await alone.promotions(alice)).toBeNull();
    await there.promote(alice, 'h1', ['a']);
    expect(await here.promotions(alice)).toEqual({ catalogHash: 'h1', names: ['a'] });
    // A replica that did not hear lags until it asks fresh: the bus is what makes the difference.
    expect(await alone.promotions(alice)).toBeNull();
  });

  it('loses no name when searches of one principal promote at once on several replicas', async () => {
    const stores = Array.from({ length: 4 }, () => replica(new InProcessEventBus()));
    const alice = owner();
    const names = Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name, i) => stores[i % 4]!.promote(alice, 'h1', [name])));
    expect(await stored(alice)).toEqual({ catalogHash: 'h1', names });
  });
});
