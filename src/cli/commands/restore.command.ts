import type * as EmbeddedBackup from '../../database/embedded-backup';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command } from 'commander';
import { DataDirLockedError } from '../../database/data-dir-lock';
import { CliError } from '../cli-error';
import { loadOnUse } from '../../common/load-on-use';
import { embeddedDatabaseDir } from '../data-dir';
import { errorMessage } from '../../common/error-message';

interface RestoreOptions {
  dataDir?: string;
  force?: boolean;
}

export function registerRestore(program: Command): void {
  program
    .command('restore')
    .description(
      'Replace the embedded database with a backup; Portico must be stopped. The database it ' +
        'replaces is kept beside it, renamed.',
    )
    .argument('<file>', 'a file written by portico backup')
    .option('--data-dir <dir>', 'the instance’s DATA_DIR (default: DATA_DIR, else ./data)')
    .option('--force', 'restore although another host marked the data directory in use')
    .action(async (file: string, options: RestoreOptions) => {
      const dir = embeddedDatabaseDir(options.dataDir, process.env);
      if (!existsSync(file)) throw new CliError(`No such file: ${file}`);
      const { restoreDataDir } = loadOnUse<typeof EmbeddedBackup>(
        require.resolve('../../database/embedded-backup'),
      );
      let result;
      try {
        result = await restoreDataDir(dir, readFileSync(file), { force: options.force });
      } catch (error) {
        if (error instanceof DataDirLockedError) {
          throw new CliError(
            error.foreign
              ? `${error.message} If that Portico is stopped, repeat with --force.`
              : `${error.message} Stop Portico, then restore.`,
          );
        }
        throw new CliError(errorMessage(error));
      }
      const lines = [`Restored ${file} into ${dir} (${result.migrations} migrations recorded).`];
      if (result.previous)
        lines.push(`The database it replaced is kept at ${result.previous}; delete it when done.`);
      if (!process.env.ENCRYPTION_KEY && !existsSync(join(dir, '..', 'encryption_key'))) {
        lines.push(
          'No ENCRYPTION_KEY here: stored upstream credentials stay unreadable until Portico ' +
            'starts with the key of the instance that made the backup.',
        );
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
