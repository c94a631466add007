import { Logger } from '@nestjs/common';
import { type DataSource, type EntityManager } from 'typeorm';

/** What fits an expression index to a setting after the migrations, such as the virtual-name one. */
export interface IndexFitter {
  ensureIndex(manager: EntityManager): Promise<void>;
}

/** Any constant shared by every replica; keys the lock that serialises concurrent start-ups. */
const MIGRATION_LOCK_KEY = 7_351_402;

/**
 * Runs pending migrations and fits the virtual-name index to the separator. On PostgreSQL a
 * session advisory lock keeps replicas that start together from migrating at once; the embedded
 * database has one process, so it needs none.
 */
export async function migrate(
  dataSource: DataSource,
  names: IndexFitter,
  lock: boolean,
): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    if (lock) await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    for (const migration of applied) new Logger('Migrations').log(`Applied ${migration.name}`);
    await names.ensureIndex(dataSource.manager);
  } finally {
    if (lock) await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    await runner.release();
  }
}
