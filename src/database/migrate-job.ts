import { loadConfig } from '../config/app-config';
import { ToolNameQuery } from '../tools/tool-name.query';
import { createDataSource } from './data-source';
import { EmbeddedPostgres } from './embedded-postgres';
import { migrate } from './migrate';

// The Kubernetes migration Job: `node dist/src/database/migrate-job.js`, with the app's
// replicas started with RUN_MIGRATIONS=false.
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const embedded =
    config.database.mode === 'embedded'
      ? await EmbeddedPostgres.start(config.database.dataDir)
      : null;
  const dataSource = createDataSource(
    config.database.mode === 'postgres' ? config.database.url : embedded!.url,
  );
  try {
    await dataSource.initialize();
    await migrate(dataSource, new ToolNameQuery(config), config.database.mode === 'postgres');
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
