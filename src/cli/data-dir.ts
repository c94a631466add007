import { join, resolve } from 'node:path';
import { CliError } from './cli-error';

/**
 * The embedded database's directory, `$DATA_DIR/pgdata` as the server uses it, read from the
 * environment without loadConfig: that would generate secrets in a directory being restored into.
 */
export function embeddedDatabaseDir(dataDirOption: string | undefined, env: NodeJS.ProcessEnv) {
  const url = env.DATABASE_URL?.trim();
  if (url?.startsWith('pglite://memory'))
    throw new CliError(
      'DATABASE_URL=pglite://memory keeps the database in memory: there is no file to back up or restore.',
    );
  if (url) {
    throw new CliError(
      'DATABASE_URL is set, so Portico runs on PostgreSQL: back it up and restore it with pg_dump and pg_restore.',
    );
  }
  return join(resolve(dataDirOption ?? (env.DATA_DIR?.trim() || './data')), 'pgdata');
}
