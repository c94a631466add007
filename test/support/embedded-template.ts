import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config';
import { createDataSource } from '../../src/database/data-source';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';
import { ToolNameQuery } from '../../src/tools/tool-name.query';
import { tempDataDir } from './temp-dir';

const ROOT = join(__dirname, '..', '..');

/** What the template is made of: the migrations and the PGlite that runs them. */
function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = join(ROOT, 'migrations');
  for (const name of readdirSync(migrations).sort())
    hash.update(name).update(readFileSync(join(migrations, name)));
  hash.update(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A backup of an empty, migrated embedded database, for test apps to start from
 * (`pglite://memory?from=…`) instead of running PGlite's initdb and every migration each time.
 * Made once per set of migrations, in the temp directory, and written aside then renamed, so
 * that runs side by side never read half of it.
 */
export async function embeddedTemplate(): Promise<string> {
  const file = join(tmpdir(), `portico-test-database-${templateKey()}.tar.gz`);
  if (existsSync(file)) return file;
  const embedded = await EmbeddedPostgres.start(null);
  const dataSource = createDataSource(embedded.url);
  try {
    await dataSource.initialize();
    const names = new ToolNameQuery(loadConfig({ DATA_DIR: tempDataDir(), LOG_LEVEL: 'error' }));
    await migrate(dataSource, names, false);
    await dataSource.destroy();
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, await embedded.dump());
    renameSync(aside, file);
    return file;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded.stop();
  }
}
