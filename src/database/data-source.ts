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
    uuidExtension: 'pgcrypto',
    synchronize: false,
    poolSize,
    extra: { connectionTimeoutMillis: 10_000 },
  });
}
