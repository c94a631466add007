import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { ToolNameQuery } from '../tools/tool-name.query';
import { createDataSource } from './data-source';
import { BackupController } from './backup.controller';
import { EMBEDDED_POSTGRES, EmbeddedPostgres } from './embedded-postgres';
import { migrate } from './migrate';

@Injectable()
class DatabaseShutdown implements OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}

@Global()
@Module({
  controllers: [BackupController],
  providers: [
    ToolNameQuery,
    {
      provide: EMBEDDED_POSTGRES,
      inject: [AppConfig],
      useFactory: async (config: AppConfig) => {
        if (config.database.mode !== 'embedded') return null;
        const { dataDir, from } = config.database;
        const embedded = await EmbeddedPostgres.start(dataDir, from);
        new Logger('Database').log(
          `Embedded PostgreSQL (PGlite) at ${dataDir ?? 'memory'}${from ? `, a copy of ${from}` : ''}`,
        );
        return embedded;
      },
    },
    {
      provide: DataSource,
      inject: [AppConfig, EMBEDDED_POSTGRES, ToolNameQuery],
      useFactory: async (
        config: AppConfig,
        embedded: EmbeddedPostgres | null,
        names: ToolNameQuery,
      ) => {
        const url = config.database.mode === 'postgres' ? config.database.url : embedded!.url;
        const dataSource = createDataSource(url);
        await dataSource.initialize();
        if (config.runMigrations)
          await migrate(dataSource, names, config.database.mode === 'postgres');
        return dataSource;
      },
    },
    DatabaseShutdown,
  ],
  exports: [DataSource, ToolNameQuery, EMBEDDED_POSTGRES],
})
export class DatabaseModule {}
