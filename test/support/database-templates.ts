import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../../src/config/load-config';
import { createDataSource } from '../../src/database/data-source';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';
import { ToolNameQuery } from '../../src/virtual-names/tool-name.query';
import { tempDataDir } from './temp-dir';
import { withClient } from './test-database';

const ROOT = join(__dirname, '..', '..');

/** What a template is made of: the migrations, and for the embedded one the PGlite that runs them. */
function templateKey(embedded: boolean): string {
  const hash = createHash('sha256');
  const migrations = join(ROOT, 'migrations');
  for (const name of readdirSync(migrations).sort())
    hash.update(name).update(readFileSync(join(migrations, name)));
  if (embedded)
    hash.update(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

/** Runs every migration on the database at `url`, as an app's start does. */
async function migrated(url: string, lock: boolean): Promise<void> {
  const dataSource = createDataSource(url, 2);
  try {
    await dataSource.initialize();
    const names = new ToolNameQuery(loadConfig({ DATA_DIR: tempDataDir(), LOG_LEVEL: 'error' }));
    await migrate(dataSource, names, lock);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

/** Embedded databases for tests to start from: backups, as plain tarballs. */
export interface EmbeddedTemplates {
  /** A new cluster, for a test of migrations. */
  empty: string;
  /** The same with every migration run, for everything else. */
  migrated: string;
}

/**
 * Backups of an empty embedded database, before and after every migration, for test apps to start
 * from (`pglite://memory?from=…`) instead of running PGlite's initdb (5 s of a process of its own
 * on an idle machine, 20 to 60 s in CI's side-by-side runs) and every migration each time. Made
 * once per set of migrations, in the temp directory, and written aside then renamed, so that runs
 * side by side never read half of them. Kept as plain tarballs, not gzipped as a backup is: PGlite
 * then unpacks them at once, where a gzipped one it first tries as a plain tarball, then gunzips
 * through web streams, about a quarter of each test database's start.
 */
export async function embeddedTemplates(): Promise<EmbeddedTemplates> {
  const key = templateKey(true);
  const templates = {
    empty: join(tmpdir(), `portico-test-empty-database-${key}.tar`),
    migrated: join(tmpdir(), `portico-test-database-${key}.tar`),
  };
  if (existsSync(templates.empty) && existsSync(templates.migrated)) return templates;
  const embedded = await EmbeddedPostgres.start(null);
  try {
    const save = async (file: string) => {
      const aside = `${file}.${process.pid}`;
      writeFileSync(aside, gunzipSync(await embedded.dump()));
      renameSync(aside, file);
    };
    await save(templates.empty);
    await migrated(embedded.url, false);
    await save(templates.migrated);
    return templates;
  } finally {
    await embedded.stop();
  }
}

/**
 * The name of an empty, migrated database on the PostgreSQL server of `server`, for test databases
 * to be created from (`CREATE DATABASE … TEMPLATE`) instead of running every migration each time.
 * Made once per set of migrations under another name, then renamed, so that a run beside this one
 * never copies half of it; it takes no connections, which would keep it from being copied.
 */
export async function postgresTemplate(server: string): Promise<string> {
  const name = `portico_template_${templateKey(false)}`;
  return withClient(server, async (client) => {
    const made = async () =>
      Boolean(
        (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
      );
    if (await made()) return name;
    const aside = `${name}_${process.pid}`;
    await client.query(`CREATE DATABASE ${aside}`);
    try {
      const url = new URL(server);
      url.pathname = `/${aside}`;
      await migrated(url.toString(), true);
      await client.query(`ALTER DATABASE ${aside} WITH ALLOW_CONNECTIONS false`);
      await client.query(`ALTER DATABASE ${aside} RENAME TO ${name}`);
    } catch (error) {
      await client.query(`DROP DATABASE IF EXISTS ${aside} WITH (FORCE)`);
      // Another run beside this one may have made it first.
      if (!(await made())) throw error;
    }
    return name;
  });
}
