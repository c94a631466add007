import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';

/** The one data source definition, shared by the app, the migration job and the generator. */
export function createDataSource(url: string, poolSize = 10): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'all',
    // gen_random_uuid() is built into PostgreSQL 13+, so no extension is needed for UUID defaults;
    // not loading pgcrypto saves the embedded database about 50 MiB. pg_trgm comes by migration.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    synchronize: false,
    poolSize,
    extra: { connectionTimeoutMillis: 10_000 },
  });
}
