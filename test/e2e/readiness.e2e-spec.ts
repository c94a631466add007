import { type AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/load-config';
import { shutDownGracefully } from '../../src/shutdown';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { tempDataDir } from '../support/temp-dir';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

describe('readiness', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('is ready once every migration is applied, and says so while one is pending', async () => {
    await request(t.baseUrl).get('/readyz').expect(200, { status: 'ready' });
    const dataSource = t.app.get(DataSource);
    await dataSource.undoLastMigration({ transaction: 'all' });
    try {
      const pending = await request(t.baseUrl).get('/readyz').expect(503);
      expect(pending.body.detail).toBe('Database migrations are pending.');
    } finally {
      await dataSource.runMigrations({ transaction: 'all' });
    }
    await request(t.baseUrl).get('/readyz').expect(200);
  });
});

describe('a replica that stops', () => {
  it('reports itself not ready at once, and ends its event streams once its calls are done', async () => {
    const t = await startTestApp({ env: { SHUTDOWN_GRACE_SECONDS: '5' } });
    const initialized = await postMcp(`${t.baseUrl}/mcp`, t.token, initializeRequest());
    const stream = await fetch(`${t.baseUrl}/mcp`, {
      headers: {
        Authorization: `Bearer ${t.token}`,
        Accept: 'text/event-stream',
        'Mcp-Session-Id': initialized.headers.get('mcp-session-id')!,
      },
    });
    const ended = stream.text();
    const stopping = shutDownGracefully(t.app);
    const ready = await request(t.baseUrl).get('/readyz').expect(503);
    expect(ready.body.detail).toBe('Shutting down.');
    // Streams end cleanly (the client resumes them elsewhere), and the session outlives the replica.
    expect(await ended).toMatch(/^id: get\.0\ndata: \n\n/);
    await stopping;
    await t.database.drop();
  });
});

describeOnPostgres('RUN_MIGRATIONS=false', () => {
  it('starts a replica without migrating, and it is ready once another process has', async () => {
    const primary = await startTestApp();
    const dataSource = primary.app.get(DataSource);
    await dataSource.undoLastMigration({ transaction: 'all' });
    const replica = await createApp(
      loadConfig({
        DATA_DIR: tempDataDir(),
        DATABASE_URL: primary.database.url,
        RUN_MIGRATIONS: 'false',
        ADMIN_PASSWORD,
        LOG_LEVEL: 'error',
      }),
    );
    try {
      await replica.listen(0, '127.0.0.1');
      const replicaUrl = `http://127.0.0.1:${(replica.getHttpServer().address() as AddressInfo).port}`;
      await request(replicaUrl).get('/readyz').expect(503);
      await dataSource.runMigrations({ transaction: 'all' });
      await request(replicaUrl).get('/readyz').expect(200);
    } finally {
      await replica.close();
      await primary.close();
    }
  });
});
