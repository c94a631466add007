import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/app-config';
import { type PorticoEvent } from '../../src/events/event-bus';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { McpSession } from '../../src/mcp/sessions/mcp-session.entity';
import { SessionStore } from '../../src/mcp/sessions/session.store';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { tempDataDir } from '../support/temp-dir';

describe('tool-search promotions in the session store', () => {
  let db: TestDataSource;
  let store: SessionStore;
  const events: PorticoEvent[] = [];

  beforeAll(async () => {
    db = await openTestDataSource();
    const bus = new InProcessEventBus();
    bus.subscribe((event) => events.push(event));
    store = new SessionStore(db.dataSource, bus, loadConfig({ DATA_DIR: tempDataDir() }));
  });

  afterAll(async () => {
    await db.close();
  });

  async function session(): Promise<string> {
    const created = await store.create({
      id: randomUUID(),
      serverId: null,
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
      promotions: null,
    });
    return created.id;
  }

  const stored = async (id: string) =>
    (await db.dataSource.getRepository(McpSession).findOneByOrFail({ id })).promotions;

  it('stores the first promotion, merges under the same hash and replaces under a new one', async () => {
    const id = await session();
    expect(await store.promote(id, 'h1', ['b', 'a'])).toEqual({
      promotions: { catalogHash: 'h1', names: ['a', 'b'] },
      changed: true,
    });
    await store.promote(id, 'h1', ['c']);
    expect(await stored(id)).toEqual({ catalogHash: 'h1', names: ['a', 'b', 'c'] });
    await store.promote(id, 'h2', ['z']);
    expect(await stored(id)).toEqual({ catalogHash: 'h2', names: ['z'] });
  });

  it('announces a change to every replica, and nothing when nothing changed', async () => {
    const id = await session();
    events.length = 0;
    await store.promote(id, 'h1', ['a']);
    expect(events).toEqual([{ type: 'mcp.session.changed', sessionId: id, ended: false }]);
    expect(await store.promote(id, 'h1', ['a'])).toMatchObject({ changed: false });
    expect(events).toHaveLength(1);
  });

  it('loses no name when searches of one session promote at once', async () => {
    const id = await session();
    // Separate stores stand for separate replicas: each reads, merges and compares-and-sets.
    const replicas = Array.from(
      { length: 4 },
      () =>
        new SessionStore(
          db.dataSource,
          new InProcessEventBus(),
          loadConfig({ DATA_DIR: tempDataDir() }),
        ),
    );
    const names = Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name, i) => replicas[i % 4]!.promote(id, 'h1', [name])));
    expect(await stored(id)).toEqual({ catalogHash: 'h1', names });
  });

  it('reads the stored promotions when asked for fresh ones, and its own copy otherwise', async () => {
    const id = await session();
    const other = new SessionStore(
      db.dataSource,
      new InProcessEventBus(),
      loadConfig({ DATA_DIR: tempDataDir() }),
    );
    await store.promote(id, 'h1', ['a']);
    expect(await store.promotions(id)).toEqual({ catalogHash: 'h1', names: ['a'] });
    await other.promote(id, 'h1', ['b']);
    // This replica has not heard of the other's change: its copy lags, the database does not.
    expect(await store.promotions(id)).toEqual({ catalogHash: 'h1', names: ['a'] });
    expect(await store.promotions(id, true)).toEqual({ catalogHash: 'h1', names: ['a', 'b'] });
    expect(await store.promotions(id)).toEqual({ catalogHash: 'h1', names: ['a', 'b'] });
  });

  it('has nothing for a session that does not exist', async () => {
    expect(await store.promote('no-such-session', 'h1', ['a'])).toBeNull();
    expect(await store.promotions('no-such-session', true)).toBeNull();
  });

  it('reads the state replicas keep in step, and nothing else, so applying it keeps the rest', async () => {
    const id = await session();
    const found = (await store.find(id))!;
    const current = (await store.current([id])).get(id)!;
    expect(Object.keys(current).sort()).toEqual(['initializeParams', 'logLevel', 'subscriptions']);
    Object.assign(found, current);
    expect(found.lastSeenAt).toBeInstanceOf(Date);
    expect(found.subject).toBe('admin');
  });
});
