import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/load-config';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { SessionStore } from '../../src/mcp/sessions/session.store';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { tempDataDir } from '../support/temp-dir';

describe('the session store', () => {
  let db: TestDataSource;
  let store: SessionStore;

  beforeAll(async () => {
    db = await openTestDataSource();
    store = new SessionStore(
      db.dataSource,
      new InProcessEventBus(),
      loadConfig({ DATA_DIR: tempDataDir() }),
    );
  });

  afterAll(async () => {
    await db.close();
  });

  const created = () =>
    store.create({
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
      exchangeable: false,
    });

  it('reads the state replicas keep in step, and nothing else, so applying it keeps the rest', async () => {
    const { id } = await created();
    const found = (await store.find(id))!;
    const current = (await store.current([id])).get(id)!;
    expect(Object.keys(current).sort()).toEqual(['initializeParams', 'logLevel', 'subscriptions']);
    Object.assign(found, current);
    expect(found.lastSeenAt).toBeInstanceOf(Date);
    expect(found.subject).toBe('admin');
  });

  it('adds a subscription only where what is stored leaves room for it', async () => {
    const { id } = await created();
    const full = (subscriptions: readonly string[], uri: string) =>
      subscriptions.length >= 2 && !subscriptions.includes(uri);
    await expect(store.subscribe(id, 'a://1', true, full)).resolves.toEqual(['a://1']);
    await expect(store.subscribe(id, 'a://2', true, full)).resolves.toEqual(['a://1', 'a://2']);
    await expect(store.subscribe(id, 'a://3', true, full)).resolves.toBe('full');
    await expect(store.subscribe(id, 'a://2', true, full)).resolves.toEqual(['a://1', 'a://2']);
    await expect(store.subscribe(id, 'a://1', false, full)).resolves.toEqual(['a://2']);
    await expect(store.subscribe(id, 'a://3', true, full)).resolves.toEqual(['a://2', 'a://3']);
    expect((await store.find(id))!.subscriptions).toEqual(['a://2', 'a://3']);
  });
});
