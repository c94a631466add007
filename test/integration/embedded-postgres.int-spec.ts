import { Client } from 'pg';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDED_SETTINGS, EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { startEmbeddedCopy } from '../support/test-database';
import { tempDataDir } from '../support/temp-dir';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

// Tests of what the start's own cluster does not matter to (the socket server, the start settings)
// open a copy of the migrated template, in under a second; a new cluster is an initdb of several.
describe('EmbeddedPostgres', () => {
  it('keeps data across a restart', async () => {
    const dataDir = tempDataDir();
    const first = await EmbeddedPostgres.start(dataDir);
    await query(
      first.url,
      `CREATE TABLE kept (value text); INSERT INTO kept VALUES ('still here')`,
    );
    await first.stop();

    const second = await EmbeddedPostgres.start(dataDir);
    try {
      expect(await query<{ value: string }>(second.url, 'SELECT value FROM kept')).toEqual([
        { value: 'still here' },
      ]);
    } finally {
      await second.stop();
    }
  });

  it('freezes its template databases as it starts, once their transaction ids grew old', async () => {
    const dataDir = tempDataDir();
    const templateAges = async (url: string) =>
      (
        await query<{ age: number }>(
          url,
          `SELECT age(datfrozenxid) AS age FROM pg_database WHERE datname LIKE 'template%'`,
        )
      ).map((row) => row.age);
    const first = await EmbeddedPostgres.start(dataDir);
    const client = new Client({ connectionString: first.url });
    await client.connect();
    for (let i = 0; i < 300; i++) await client.query('SELECT txid_current()');
    await client.end();
    // Young enough for the default threshold: left alone.
    expect(first.frozeTemplates).toBe(false);
    for (const age of await templateAges(first.url)) expect(age).toBeGreaterThanOrEqual(300);
    await first.stop();

    const second = await EmbeddedPostgres.start(dataDir, undefined, 100);
    try {
      expect(second.frozeTemplates).toBe(true);
      const ages = await templateAges(second.url);
      expect(ages).toHaveLength(2);
      for (const age of ages) expect(age).toBeLessThan(10);
    } finally {
      await second.stop();
    }
  });

  it('starts an in-memory database as a copy of a backup, and leaves the backup as it was', async () => {
    const original = await EmbeddedPostgres.start(null);
    await query(original.url, `CREATE TABLE kept (value text); INSERT INTO kept VALUES ('copied')`);
    const backup = join(tempDataDir(), 'backup.tar.gz');
    writeFileSync(backup, await original.dump());
    await original.stop();

    const copies = [
      await EmbeddedPostgres.start(null, backup),
      await EmbeddedPostgres.start(null, backup),
    ];
    try {
      await query(copies[0]!.url, `INSERT INTO kept VALUES ('only in the first copy')`);
      expect(await query<{ value: string }>(copies[1]!.url, 'SELECT value FROM kept')).toEqual([
        { value: 'copied' },
      ]);
    } finally {
      for (const copy of copies) await copy.stop();
    }
  });

  it('serves several connections at once through the pg driver', async () => {
    const db = await startEmbeddedCopy();
    try {
      const clients = await Promise.all(
        [1, 2, 3].map(async () => {
          const client = new Client({ connectionString: db.url });
          await client.connect();
          return client;
        }),
      );
      const answers = await Promise.all(
        clients.map((client, i) => client.query(`SELECT ${i} AS n`)),
      );
      expect(answers.map((answer) => (answer.rows[0] as { n: number }).n)).toEqual([0, 1, 2]);
      await Promise.all(clients.map((client) => client.end()));
    } finally {
      await db.stop();
    }
  });

  it("keeps one connection's statements out of another's transaction, and frees the session of one that left mid-transaction", async () => {
    const db = await startEmbeddedCopy();
    const connect = async () => {
      const client = new Client({ connectionString: db.url });
      await client.connect();
      return client;
    };
    const [rolling, writing] = [await connect(), await connect()];
    try {
      await writing.query('CREATE TABLE written (value int, note text)');
      // An extended query (Parse, Bind, … Sync) large enough to reach the server in several
      // chunks, beside a transaction that is rolled back: each insert must stay outside it.
      const note = 'n'.repeat(256 * 1024);
      for (let i = 0; i < 20; i++)
        await Promise.all([
          writing.query('INSERT INTO written VALUES ($1, $2)', [i, note]),
          (async () => {
            await rolling.query('BEGIN');
            await rolling.query('SELECT $1::int', [i]);
            await rolling.query('ROLLBACK');
          })(),
        ]);
      const count = await writing.query<{ n: number }>('SELECT count(*)::int AS n FROM written');
      expect(count.rows[0]!.n).toBe(20);

      // A connection that goes away inside a transaction leaves nothing open behind it.
      const leaving = await connect();
      leaving.on('error', () => undefined);
      await leaving.query('BEGIN');
      await leaving.query('INSERT INTO written VALUES (-1, null)');
      const waiting = writing.query<{ n: number }>('SELECT count(*)::int AS n FROM written');
      leaving.connection.stream.destroy();
      expect((await waiting).rows[0]!.n).toBe(20);
    } finally {
      await Promise.all([rolling.end(), writing.end()]);
      await db.stop();
    }
  });

  it('runs with the lean settings and without pgcrypto, while UUID defaults still work', async () => {
    const db = await startEmbeddedCopy();
    try {
      const settings = await query<{ name: string; setting: string }>(
        db.url,
        `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['shared_buffers', 'wal_buffers']) AS name`,
      );
      expect(settings).toEqual([
        { name: 'shared_buffers', setting: EMBEDDED_SETTINGS.shared_buffers },
        { name: 'wal_buffers', setting: EMBEDDED_SETTINGS.wal_buffers },
      ]);
      const [row] = await query<{ id: string; pgcrypto: boolean }>(
        db.url,
        `SELECT gen_random_uuid()::text AS id,
                EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto') AS pgcrypto`,
      );
      expect(row!.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(row!.pgcrypto).toBe(false);
    } finally {
      await db.stop();
    }
  });

  it('refuses a second start on a data directory that is open, and allows it after stop', async () => {
    const dataDir = join(tempDataDir(), 'pgdata');
    const first = await EmbeddedPostgres.start(dataDir);
    try {
      await expect(EmbeddedPostgres.start(dataDir)).rejects.toThrow(/already open/);
    } finally {
      await first.stop();
    }
    const second = await EmbeddedPostgres.start(dataDir);
    await second.stop();
  });

  it('refuses a directory that holds something other than a database, and leaves it alone', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    await expect(EmbeddedPostgres.start(dataDir)).rejects.toThrow(/neither empty nor/);
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });
});
