import { loadConfig } from '../config/load-config';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { createDataSource } from './data-source';
import { EmbeddedPostgres } from './embedded-postgres';
import { migrate } from './migrate';

/**
 * The Kubernetes migration Job (`portico migrate`, or `node dist/src/database/migrate-job.js`),
 * with the app's replicas started with RUN_MIGRATIONS=false.
 */
export async function runMigrationJob(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env);
  const embedded =
    config.database.mode === 'embedded'
      ? await EmbeddedPostgres.start(config.database.dataDir)
      : null;
  try {
    const dataSource = createDataSource(
      config.database.mode === 'postgres' ? config.database.url : embedded!.url,
    );
    try {
      await dataSource.initialize();
      await migrate(dataSource, new ToolNameQuery(config), config.database.mode === 'postgres');
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
    }
  } finally {
    await embedded?.stop();
  }
}

if (require.main === module) {
  runMigrationJob(process.env).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
