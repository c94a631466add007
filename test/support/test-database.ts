import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';

/**
 * A fresh database for one test file: a new database on the PostgreSQL server named by
 * TEST_DATABASE_URL when set (as in CI), otherwise an in-memory embedded PGlite. Either is a copy
 * of the migrated template that the global set-up made (TEST_POSTGRES_TEMPLATE,
 * TEST_EMBEDDED_TEMPLATE), unless the test asks for an empty one, as a test of a migration does
 * (on PGlite a copy of the empty template, TEST_EMBEDDED_EMPTY).
 */
export interface TestDatabase {
  /** The DATABASE_URL to give the app. */
  url: string;
  onPostgres: boolean;
  drop(): Promise<void>;
}

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * An in-memory embedded database: a copy of `template` (one the global set-up made) when there is
 * one, instead of PGlite's initdb and every migration.
 */
export function embeddedDatabaseUrl(template: string | undefined): string {
  return template ? `pglite://memory?from=${encodeURIComponent(template)}` : 'pglite://memory';
}

/**
 * An embedded database in memory, a copy of the migrated template (a new cluster without one),
 * for a test that opens the embedded database itself instead of through a DATABASE_URL.
 */
export function startEmbeddedCopy(): Promise<EmbeddedPostgres> {
  return EmbeddedPostgres.start(null, process.env.TEST_EMBEDDED_TEMPLATE);
}

/**
 * `shared`: one database that apps started one after another, or side by side, all open. An
 * embedded `pglite://memory` URL gives each app a copy of its own, so on PGlite it is an embedded
 * server of its own, a copy of the template, that `drop` stops.
 */
export async function createTestDatabase(
  options: { empty?: boolean; shared?: boolean } = {},
): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    const template = options.empty
      ? process.env.TEST_EMBEDDED_EMPTY
      : process.env.TEST_EMBEDDED_TEMPLATE;
    if (!options.shared)
      return { url: embeddedDatabaseUrl(template), onPostgres: false, drop: async () => undefined };
    const embedded = await EmbeddedPostgres.start(null, template);
    return { url: embedded.url, onPostgres: false, drop: () => embedded.stop() };
  }
  const name = `portico_test_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? undefined : process.env.TEST_POSTGRES_TEMPLATE;
  await withClient(server, (client) =>
    client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`),
  );
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    onPostgres: true,
    drop: async () => {
      await withClient(server, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
    },
  };
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
