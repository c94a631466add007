import { type DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/load-config';
import { createDataSource } from '../../src/database/data-source';
import { migrate } from '../../src/database/migrate';
import { ToolNameQuery } from '../../src/virtual-names/tool-name.query';
import { createTestDatabase, startEmbeddedCopy } from './test-database';
import { tempDataDir } from './temp-dir';

export interface TestDataSource {
  dataSource: DataSource;
  names: ToolNameQuery;
  close(): Promise<void>;
}

/** A migrated data source on a fresh database, for integration tests of repositories. */
export async function openTestDataSource(
  env: Record<string, string> = {},
): Promise<TestDataSource> {
  const database = await createTestDatabase();
  const config = loadConfig({ DATA_DIR: tempDataDir(), ...env });
  const embedded = database.onPostgres ? null : await startEmbeddedCopy();
  const dataSource = createDataSource(embedded?.url ?? database.url);
  await dataSource.initialize();
  const names = new ToolNameQuery(config);
  await migrate(dataSource, names, database.onPostgres);
  return {
    dataSource,
    names,
    close: async () => {
      await dataSource.destroy();
      await embedded?.stop();
      await database.drop();
    },
  };
}
