import type * as Serve from '../../serve';
import { type Command } from 'commander';
import { startTracing } from '../../observability/tracing';
import { loadOnUse } from '../../common/load-on-use';

export function registerStart(program: Command): void {
  program
    .command('start')
    .description('Start the server, configured by the environment (as npm run start:prod)')
    .action(async () => {
      startTracing(process.env);
      const { serve } = loadOnUse<typeof Serve>(require.resolve('../../serve'));
      await serve(process.env);
    });
}
