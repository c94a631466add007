import { type NestExpressApplication } from '@nestjs/platform-express';
import { get, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/load-config';
import { Metrics } from '../../src/observability/metrics';
import { listen } from '../../src/serve';
import { rawConnection, type RawConnection } from '../support/raw-http';
import { tempDataDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

function healthz(baseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${baseUrl}/healthz`, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
  });
}

function connections(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

describe('HOST', () => {
  let database: TestDatabase;
  let app: NestExpressApplication | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  afterAll(async () => {
    await database.drop();
  });

  async function listenWith(host: string): Promise<AddressInfo> {
    const config = loadConfig({
      DATA_DIR: tempDataDir(),
      DATABASE_URL: database.url,
      PASSWORD_HASH_COST: '14',
      LOG_LEVEL: 'error',
      SYNC_INTERVAL_SECONDS: '0',
      PORT: '0',
      HOST: host,
    });
    app = await createApp(config);
    await listen(app, config);
    return app.getHttpServer().address() as AddressInfo;
  }

  it('binds the address it names, loopback only for 127.0.0.1', async () => {
    const address = await listenWith('127.0.0.1');
    expect(address).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    expect(await healthz(`http://127.0.0.1:${address.port}`)).toBe(200);
  }, 60_000);

  it('resolves a host name to the address it binds', async () => {
    const address = await listenWith('localhost');
    expect(['127.0.0.1', '::1']).toContain(address.address);
  }, 60_000);
});

describe('HTTP_MAX_CONNECTIONS', () => {
  const MAX = 6;
  let t: TestApp;
  const held: RawConnection[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { HTTP_MAX_CONNECTIONS: String(MAX) } });
  });

  afterAll(async () => {
    for (const connection of held) connection.socket.destroy();
    await t.close();
  });

  it('closes connections past the cap unanswered, counts them, and serves again once one closes', async () => {
    const server: Server = t.app.getHttpServer();
    const port = Number(new URL(t.baseUrl).port);
    // Kept-alive connections of the set-up may hold some already.
    for (let open = await connections(server); open < MAX; open += 1)
      held.push(await rawConnection(port));
    await waitFor(async () => (await connections(server)) === MAX, 'the cap to be reached');

    const refused = await rawConnection(port);
    await refused.closed;
    expect(refused.received()).toBe('');
    await expect(healthz(t.baseUrl)).rejects.toThrow();

    held.shift()!.socket.destroy();
    expect(await waitFor(() => healthz(t.baseUrl).catch(() => false), 'a connection freed')).toBe(
      200,
    );
    const dropped = await t.app
      .get(Metrics)
      .registry.getSingleMetric('portico_http_connections_dropped_total')!
      .get();
    expect(dropped.values[0]!.value).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
