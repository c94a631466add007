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

  it('reads the state replicas keep in step, and nothing else, so applying it keeps the rest', async () => {
    const { id } = await store.create({
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
    const found = (await store.find(id))!;
    const current = (await store.current([id])).get(id)!;
    expect(Object.keys(current).sort()).toEqual(['initializeParams', 'logLevel', 'subscriptions']);
    Object.assign(found, current);
    expect(found.lastSeenAt).toBeInstanceOf(Date);
    expect(found.subject).toBe('admin');
  });
});
