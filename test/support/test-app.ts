import { type NestExpressApplication } from '@nestjs/platform-express';
import { type AddressInfo, createServer } from 'node:net';
import request from 'supertest';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/load-config';
import { type Settings } from '../../src/config/settings';
import { createTestDatabase, type TestDatabase } from './test-database';
import { tempDataDir } from './temp-dir';

export const ADMIN_PASSWORD = 'portico-test-password';

/**
 * `sync.changeWaitMs` of a test app: a registration answers once its first sync has ended, as it
 * does in 3 s on an idle machine, so that a test can read the catalogue at once. Under CI's load
 * a fixture's first sync can outlast the default wait, and the test read a catalogue that was
 * not there yet. A test that starts from its own configuration document keeps what it says.
 */
const TEST_CHANGE_WAIT_MS = 30_000;

export interface TestApp {
  app: NestExpressApplication;
  config: Settings;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** An admin bearer token. */
  token: string;
  database: TestDatabase;
  /** supertest against the app, with the admin token set. */
  api(): ReturnType<typeof authorised>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /**
   * Listen on a port chosen up front and make `http://127.0.0.1:<port>` the PUBLIC_URL, as OAuth
   * needs: resource URLs, issuer and redirects are built from it.
   */
  publicUrl?: boolean;
  /** The port to use with `publicUrl`, chosen beforehand (for a provider that must know it). */
  port?: number;
  /** Share another instance's database, as a second replica would. */
  database?: TestDatabase;
  /** Settings over those the environment and the test defaults give. */
  settings?: Partial<Settings>;
}

/** The real AppModule on a random loopback port, on a fresh database unless one is given. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const port = options.publicUrl ? (options.port ?? (await freePort())) : 0;
  const loaded = loadConfig({
    DATA_DIR: tempDataDir(),
    DATABASE_URL: database.url,
    ADMIN_PASSWORD,
    // 2^14 instead of 2^17: each app hashes and checks the admin's password, a few hundred
    // times over the suite; what is tested is the same at either cost.
    PASSWORD_HASH_COST: '14',
    LOG_LEVEL: 'error',
    SYNC_INTERVAL_SECONDS: '0',
    PORT: String(port),
    ...(options.publicUrl ? { PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
    ...options.env,
  });
  const config: Settings = {
    ...loaded,
    ...(options.env?.CONFIG_FILE === undefined ? { syncChangeWaitMs: TEST_CHANGE_WAIT_MS } : {}),
    ...options.settings,
  };
  const app = await createApp(config);
  await app.listen(port, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const response = await request(baseUrl)
    .post('/api/v1/auth/token')
    .send({ username: 'admin', password: ADMIN_PASSWORD })
    .expect(200);
  const token = (response.body as { accessToken: string }).accessToken;
  return {
    app,
    config,
    baseUrl,
    token,
    database,
    api: () => authorised(baseUrl, token),
    close: async () => {
      await closeApp(app);
      if (!options.database) await database.drop();
    },
  };
}

/**
 * Closes a test app as Nest does, but without waiting for the connections its clients still
 * hold once everything else is closed: a client whose stream the closing app ended connects
 * again, and such a connection held the server's close for about four seconds, at every app a
 * test closed.
 */
async function closeApp(app: NestExpressApplication): Promise<void> {
  const server = app.getHttpServer();
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    const closing = close(callback);
    server.closeAllConnections();
    return closing;
  };
  await app.close();
}

/** A loopback port free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function authorised(baseUrl: string, token: string) {
  const agent = request.agent(baseUrl);
  agent.set('Authorization', `Bearer ${token}`);
  return agent;
}

/** Another replica of `primary`: same database and the same secrets, as a deployment shares them. */
export function startReplica(primary: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({
    database: primary.database,
    env: {
      JWT_SECRET: primary.config.jwtSecret,
      ENCRYPTION_KEY: primary.config.encryptionKey.toString('hex'),
      ...env,
    },
  });
}
