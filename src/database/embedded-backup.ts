import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirLock } from './data-dir-lock';
import { dump, open } from './embedded-postgres';
import { errorMessage } from '../common/error-message';

/**
 * Backups of the embedded database are PGlite dumps of its data directory: a gzipped tarball of
 * the PostgreSQL files, taken while nothing writes. A running instance dumps itself
 * (GET /api/v1/backup); these functions work on a directory that no process has open.
 */

export interface OfflineOptions {
  /** Go ahead although a lock written on another host remains (see DataDirLock). */
  force?: boolean;
}

/** Dumps the database in `dataDir`, which no running process may have open. */
export async function backupDataDir(
  dataDir: string,
  options: OfflineOptions = {},
): Promise<Buffer> {
  if (!existsSync(join(dataDir, 'PG_VERSION')))
    throw new Error(`There is no embedded database in ${dataDir}.`);
  const lock = DataDirLock.acquire(dataDir, { takeOverForeign: options.force ?? false });
  try {
    const db = await open(dataDir);
    try {
      return await dump(db);
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
}

export interface RestoreResult {
  /** Where the database that was there before now is, or null when there was none. */
  previous: string | null;
  /** Migrations recorded in the restored database. */
  migrations: number;
}

/**
 * Replaces the database in `dataDir` with the dump `archive`. Nothing is lost on the way: the
 * dump is unpacked and opened beside the directory first, and only a dump that opens as a Portico
 * database takes its place; the directory it replaces is kept, renamed, for the operator to delete.
 *
 * Refused while the directory is open (see DataDirLock).
 */
export async function restoreDataDir(
  dataDir: string,
  archive: Buffer,
  options: OfflineOptions = {},
): Promise<RestoreResult> {
  const lock = DataDirLock.acquire(dataDir, { takeOverForeign: options.force ?? false });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const staging = `${dataDir}.restoring-${stamp}`;
  try {
    const migrations = await unpack(staging, archive);
    const previous = existsSync(dataDir) ? `${dataDir}.before-restore-${stamp}` : null;
    if (previous) renameSync(dataDir, previous);
    renameSync(staging, dataDir);
    return { previous, migrations };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}

/** Unpacks the dump into `dir` and proves it is a Portico database; returns its migration count. */
async function unpack(dir: string, archive: Buffer): Promise<number> {
  let db;
  try {
    db = await open(dir, archive);
  } catch (error) {
    throw new Error(`The file is not a Portico backup: ${errorMessage(error)}`);
  }
  try {
    const result = await db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM migrations',
    );
    return result.rows[0]?.count ?? 0;
  } catch (error) {
    throw new Error(`The backup holds no Portico database: ${errorMessage(error)}`);
  } finally {
    await db.close();
  }
}
