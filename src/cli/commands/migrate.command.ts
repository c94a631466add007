import type * as MigrateJob from '../../database/migrate-job';
import { type Command } from 'commander';
import { loadOnUse } from '../../common/load-on-use';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description(
      'Apply pending database migrations and exit (the Kubernetes migration Job; replicas then run with RUN_MIGRATIONS=false)',
    )
    .action(async () => {
      const { runMigrationJob } = loadOnUse<typeof MigrateJob>(
        require.resolve('../../database/migrate-job'),
      );
      await runMigrationJob(process.env);
      process.stdout.write('Migrations are up to date.\n');
    });
}
