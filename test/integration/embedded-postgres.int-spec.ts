import { Client } from 'pg';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
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

  it('serves several connections at once through the pg driver', async () => {
    const db = await EmbeddedPostgres.start(null);
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
});
