import { DataSource } from 'typeorm';
import { type MIGRATIONS } from '../../migrations';
import { createDataSource } from '../../src/database/data-source';
import { createTestDatabase, type TestDatabase } from './test-database';

type Migrations = typeof MIGRATIONS;

/** An empty database of the describe block's own, for a migration's spec to migrate as it likes. */
export interface MigrationDatabase {
  /** A data source on the database that knows these migrations and has run none of them. */
  open(migrations: Migrations): Promise<DataSource>;
  /** Runs whichever of these migrations have not run yet, then `work`, on a data source of its own. */
  run(migrations: Migrations, work: (db: DataSource) => Promise<void>): Promise<void>;
}

/**
 * Registers the hooks that make the database (an empty one on the machine's PostgreSQL, else an
 * embedded server of its own) before the block's tests and drop it after them.
 */
export function migrationDatabase(): MigrationDatabase {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true, shared: true });
  });
  afterAll(() => database.drop());
  const open = async (migrations: Migrations) => {
    const dataSource = new DataSource({
      ...createDataSource(database.url, 2).options,
      migrations,
    });
    await dataSource.initialize();
    return dataSource;
  };
  return {
    open,
    async run(migrations, work) {
      const dataSource = await open(migrations);
      try {
        await dataSource.runMigrations({ transaction: 'all' });
        await work(dataSource);
      } finally {
        await dataSource.destroy();
      }
    },
  };
}
