import { type Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';
import { guardedClient } from './guarded-client';

/** Bounds on every round trip of a pool (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS). */
export interface DatabaseTimeouts {
  connectMs: number;
  queryMs: number;
}

export interface DataSourceOptions {
  poolSize?: number;
  /**
   * The app's pool has them; migrations and the migration job run without a statement limit,
   * since a migration on a large table may rightly take minutes.
   */
  timeouts?: DatabaseTimeouts;
  /** Told of every error a pooled connection raises (a terminated backend, a reset). */
  onClientError?: (error: Error) => void;
  /** Told of every pooled connection as it is made. */
  onClientCreate?: (client: Client) => void;
}

/** How much later than the server's `statement_timeout` the client gives up on its own. */
const CLIENT_MARGIN_MS = 1000;
const UNBOUNDED_CONNECT_MS = 10_000;

/** The one data source definition, shared by the app, the migration job and the generator. */
export function createDataSource(
  url: string,
  poolSizeOrOptions: number | DataSourceOptions = {},
): DataSource {
  const options =
    typeof poolSizeOrOptions === 'number' ? { poolSize: poolSizeOrOptions } : poolSizeOrOptions;
  const { timeouts } = options;
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
    poolSize: options.poolSize ?? 10,
    // The pool re-emits what an idle client raised; each client reports its own (guardedClient).
    poolErrorHandler: () => undefined,
    extra: {
      Client: guardedClient(options.onClientError ?? (() => undefined), options.onClientCreate),
      connectionTimeoutMillis: timeouts?.connectMs ?? UNBOUNDED_CONNECT_MS,
      // A partitioned server is noticed on idle connections too, not only when a query waits.
      keepAlive: true,
      ...(timeouts
        ? {
            // The server cancels a slow statement and the connection stays usable; the client's own
            // limit, a little later, covers a server that no longer answers at all.
            statement_timeout: timeouts.queryMs,
            query_timeout: timeouts.queryMs + CLIENT_MARGIN_MS,
          }
        : {}),
    },
  });
}
