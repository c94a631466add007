import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { describeEmbedded } from '../support/describe-on-postgres';
import { portico } from '../support/portico-command';
import { tempDataDir } from '../support/temp-dir';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { type TestDatabase } from '../support/test-database';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('portico CLI against a running Portico', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('health exits 0 for a ready Portico and 1, saying why, for one that does not answer', async () => {
    const ready = await portico(['health', '--url', app.baseUrl]);
    expect(ready).toMatchObject({ code: 0, stdout: `Ready: ${app.baseUrl}\n` });

    const down = `http://127.0.0.1:${await closedPort()}`;
    const notReady = await portico(['health'], { PORTICO_URL: down });
    expect(notReady.code).toBe(1);
    expect(notReady.stderr).toMatch(`portico: Not ready: cannot reach ${down} (ECONNREFUSED)`);
  });

  it('token create signs in with a username and password and prints a token for one server', async () => {
    const server = await app.api().post('/api/v1/servers').send({ name: 'cli' }).expect(201);
    const id = (server.body as { id: string }).id;
    const env = { PORTICO_URL: app.baseUrl, PORTICO_USERNAME: 'admin' };

    const issued = await portico(['token', 'create', '--server', id, '--ttl', '600'], {
      ...env,
      PORTICO_PASSWORD: ADMIN_PASSWORD,
    });
    expect(issued.code).toBe(0);
    const token = issued.stdout.trim();
    // A server token: refused on the REST API, accepted by its server's MCP endpoint.
    await request(app.baseUrl)
      .get('/api/v1/servers')
      .set('Authorization', `Bearer ${token}`)
      .expect(403);
    // Nor may it download a backup, which holds every credential's ciphertext.
    await request(app.baseUrl)
      .get('/api/v1/backup')
      .set('Authorization', `Bearer ${token}`)
      .expect(403);
    await request(app.baseUrl).get('/api/v1/backup').expect(401);
    const mcp = await request(app.baseUrl)
      .post(`/servers/${id}/mcp`)
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(mcp.status).not.toBe(401);
    expect(mcp.status).not.toBe(403);

    const wrong = await portico(['token', 'create', '--server', id], {
      ...env,
      PORTICO_PASSWORD: 'not-the-password',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^portico: POST \/api\/v1\/auth\/token: 401 /);

    const unknown = await portico(
      ['token', 'create', '--server', '00000000-0000-4000-8000-000000000000', '--json'],
      { PORTICO_URL: app.baseUrl, PORTICO_TOKEN: app.token },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/: 404 /);

    const noCredentials = await portico(['token', 'create', '--server', id], {
      PORTICO_URL: app.baseUrl,
    });
    expect(noCredentials.stderr).toMatch(
      /set PORTICO_TOKEN, or PORTICO_USERNAME and PORTICO_PASSWORD/,
    );
  });

  it('refuses bad options with commander’s message and a non-zero exit', async () => {
    const run = await portico(['token', 'create', '--server', 'x', '--ttl', 'soon']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--ttl.*must be an integer from 60 to/);
  });

  it('backup --url downloads the embedded database, and on PostgreSQL points to pg_dump', async () => {
    const output = join(tempDataDir(), 'backup.tar.gz');
    const run = await portico(['backup', '--url', app.baseUrl, '-o', output], {
      PORTICO_TOKEN: app.token,
    });
    if (app.database.onPostgres) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/409 .*pg_dump/);
      expect(existsSync(output)).toBe(false);
    } else {
      expect(run.code).toBe(0);
      expect(readFileSync(output).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    }
  });
});

describeEmbedded('portico backup and restore of the embedded database', () => {
  const embedded: TestDatabase = { url: '', onPostgres: false, drop: async () => undefined };
  const dataDir = tempDataDir();
  const files = tempDataDir();
  const start = () => startTestApp({ database: embedded, env: { DATA_DIR: dataDir } });
  const serverNames = async (app: TestApp) =>
    (
      (await app.api().get('/api/v1/servers').expect(200)).body as { items: { name: string }[] }
    ).items
      .map((server) => server.name)
      .sort();

  it('backup of a directory without a database says so and creates none', async () => {
    const empty = tempDataDir();
    const run = await portico(['backup', '--data-dir', empty, '-o', join(files, 'none.tar.gz')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `portico: There is no embedded database in ${join(empty, 'pgdata')}.\n`,
    );
    expect(existsSync(join(empty, 'pgdata'))).toBe(false);
  });

  // Three start-ups on the embedded database and eight CLI processes: slow on a busy machine.
  it('restores what was backed up, refuses while Portico runs and loses nothing on a bad file', async () => {
    const env = { DATA_DIR: dataDir };
    const online = join(files, 'online.tar.gz');
    const offline = join(files, 'offline.tar.gz');

    const first = await start();
    try {
      await first.api().post('/api/v1/servers').send({ name: 'kept' }).expect(201);
      const backedUp = await portico(['backup', '--url', first.baseUrl, '-o', online], {
        PORTICO_TOKEN: first.token,
      });
      expect(backedUp.code).toBe(0);

      const whileRunning = await portico(['backup', '-o', offline], env);
      expect(whileRunning.code).toBe(1);
      expect(whileRunning.stderr).toMatch(/in use by another process .*portico backup --url/);
      const restoreWhileRunning = await portico(['restore', online], env);
      expect(restoreWhileRunning.code).toBe(1);
      expect(restoreWhileRunning.stderr).toMatch(/Stop Portico, then restore/);

      await first.api().post('/api/v1/servers').send({ name: 'later' }).expect(201);
    } finally {
      await first.close();
    }

    expect((await portico(['backup', '-o', offline], env)).code).toBe(0);
    const restored = await portico(['restore', online], env);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(
      /The database it replaced is kept at .*pgdata\.before-restore-/,
    );

    const second = await start();
    try {
      expect(await serverNames(second)).toEqual(['kept']);
    } finally {
      await second.close();
    }

    const garbage = join(files, 'garbage.tar.gz');
    writeFileSync(garbage, 'not a backup');
    const bad = await portico(['restore', garbage], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^portico: The file is not a Portico backup/);

    expect((await portico(['restore', offline], env)).code).toBe(0);
    const third = await start();
    try {
      expect(await serverNames(third)).toEqual(['kept', 'later']);
    } finally {
      await third.close();
    }
  }, 180_000);
});
