import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { type Pool } from 'pg';
import { DataSource } from 'typeorm';
import { type PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DatabaseSettings } from '../config/slices/database.settings';
import { Metrics } from '../observability/metrics';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { createDataSource, type DatabaseTimeouts } from './data-source';
import { DatabaseHealth } from './database-health';
import { BackupController } from './backup.controller';
import { EMBEDDED_POSTGRES, EmbeddedPostgres } from './embedded-postgres';
import { EmbeddedUpkeep } from './embedded-upkeep';
import { migrate } from './migrate';

@Injectable()
class DatabaseShutdown implements OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    private readonly health: DatabaseHealth,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.health.stop();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}

/** How often a burst of connection errors (backends cycled, a failover) is reported. */
const REPORT_EVERY_MS = 5000;

/**
 * Counts every error a pooled connection raises, and logs them at most once per REPORT_EVERY_MS:
 * a failover ends every connection at once, and the pool replaces them.
 */
function connectionErrorReporter(metrics: Metrics): (error: Error) => void {
  const logger = new Logger('Database');
  let reportedAt = 0;
  let unreported = 0;
  return (error) => {
    metrics.databaseConnectionErrors.inc();
    const now = Date.now();
    if (now - reportedAt < REPORT_EVERY_MS) {
      unreported += 1;
      return;
    }
    const more = unreported > 0 ? ` (and ${unreported} more since the last report)` : '';
    logger.warn(`A database connection failed and was dropped: ${error.message}${more}`);
    reportedAt = now;
    unreported = 0;
  };
}

@Global()
@Module({
  controllers: [BackupController],
  providers: [
    ToolNameQuery,
    {
      provide: EMBEDDED_POSTGRES,
      inject: [DatabaseSettings],
      useFactory: async (config: DatabaseSettings) => {
        if (config.database.mode !== 'embedded') return null;
        const { dataDir, from } = config.database;
        const embedded = await EmbeddedPostgres.start(dataDir, from);
        const logger = new Logger('Database');
        logger.log(
          `Embedded PostgreSQL (PGlite) at ${dataDir ?? 'memory'}${from ? `, a copy of ${from}` : ''}`,
        );
        if (embedded.frozeTemplates)
          logger.log('Froze the template databases, whose transaction ids had grown old');
        return embedded;
      },
    },
    {
      // The embedded database runs in this process: it cannot be partitioned away, so it is not
      // probed and its pool never refuses.
      provide: DatabaseHealth,
      inject: [DatabaseSettings],
      useFactory: (config: DatabaseSettings) =>
        config.database.mode === 'postgres'
          ? DatabaseHealth.probing(config.database.url)
          : new DatabaseHealth(() => Promise.resolve()),
    },
    {
      provide: DataSource,
      inject: [DatabaseSettings, EMBEDDED_POSTGRES, ToolNameQuery, Metrics, DatabaseHealth],
      useFactory: async (
        config: DatabaseSettings,
        embedded: EmbeddedPostgres | null,
        names: ToolNameQuery,
        metrics: Metrics,
        health: DatabaseHealth,
      ) => {
        const url = config.database.mode === 'postgres' ? config.database.url : embedded!.url;
        if (config.runMigrations) {
          // Without the app's statement limit: a migration on a large table may take minutes.
          const migrations = createDataSource(url, 2);
          try {
            await migrations.initialize();
            await migrate(migrations, names, config.database.mode === 'postgres');
          } finally {
            if (migrations.isInitialized) await migrations.destroy();
          }
        }
        const dataSource = createDataSource(url, {
          timeouts: poolTimeouts(config),
          onClientError: connectionErrorReporter(metrics),
          onClientCreate: (client) => health.adopt(client),
        });
        await dataSource.initialize();
        if (config.database.mode === 'postgres') {
          health.guard((dataSource.driver as PostgresDriver).master as Pool);
          health.start();
        }
        return dataSource;
      },
    },
    DatabaseShutdown,
    EmbeddedUpkeep,
  ],
  exports: [DataSource, DatabaseHealth, ToolNameQuery, EMBEDDED_POSTGRES],
})
export class DatabaseModule {}

/**
 * The app pool's bounds. The embedded database runs in this process and serves one connection at
 * a time, a transaction keeping it to its end (see embedded-socket.ts): a connection that waits
 * there waits for its turn behind a long write (a sync of 20,000 tools holds it for seconds), not
 * for a server that may be gone, so it waits as long as a statement may run. Refusing it after
 * DATABASE_CONNECT_TIMEOUT_MS answered unrelated requests 503 while the database was fine.
 */
function poolTimeouts(config: DatabaseSettings): DatabaseTimeouts {
  const { connectMs, queryMs } = config.databaseTimeouts;
  return config.database.mode === 'postgres'
    ? { connectMs, queryMs }
    : { connectMs: Math.max(connectMs, queryMs), queryMs };
}
