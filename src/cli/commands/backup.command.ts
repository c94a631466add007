import type * as EmbeddedBackup from '../../database/embedded-backup';
import { renameSync, writeFileSync } from 'node:fs';
import { type Command } from 'commander';
import { DataDirLockedError } from '../../database/data-dir-lock';
import { CliError } from '../cli-error';
import { loadOnUse } from '../../common/load-on-use';
import { embeddedDatabaseDir } from '../data-dir';
import { integer, urlOption } from '../options';
import { PorticoClient } from '../rest-client';
import { errorMessage } from '../../common/error-message';

interface BackupOptions {
  output?: string;
  timeout: number;
  url?: string;
  dataDir?: string;
  force?: boolean;
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'Back up the embedded database: through a running Portico with --url (or PORTICO_URL), ' +
        'else from the data directory of a stopped one',
    )
    .option(
      '-o, --output <file>',
      'where to write it; - for stdout (default: portico-backup-<time>.tar.gz)',
    )
    .option(
      '--timeout <seconds>',
      'how long to wait for the whole backup from a running Portico',
      integer(1, 86_400),
      600,
    )
    .addOption(urlOption())
    .option('--data-dir <dir>', 'the stopped instance’s DATA_DIR (default: DATA_DIR, else ./data)')
    .option('--force', 'use the data directory although another host marked it in use')
    .action(async (options: BackupOptions) => {
      const online = options.url !== undefined || Boolean(process.env.PORTICO_URL);
      const archive = online
        ? await PorticoClient.from(options.url, process.env).download(
            '/api/v1/backup',
            options.timeout * 1000,
          )
        : await offline(options);
      const output =
        options.output ?? `portico-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`;
      if (output === '-') {
        process.stdout.write(archive);
        return;
      }
      // Written aside and renamed, so that an interrupted backup never looks like a whole one.
      writeFileSync(`${output}.partial`, archive, { mode: 0o600 });
      renameSync(`${output}.partial`, output);
      process.stderr.write(`Backed up ${archive.length} bytes to ${output}\n`);
    });
}

async function offline(options: BackupOptions): Promise<Buffer> {
  const dir = embeddedDatabaseDir(options.dataDir, process.env);
  const { backupDataDir } = loadOnUse<typeof EmbeddedBackup>(
    require.resolve('../../database/embedded-backup'),
  );
  try {
    return await backupDataDir(dir, { force: options.force });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      throw new CliError(
        error.foreign
          ? `${error.message} If it is stopped, repeat with --force; if it runs, back up through it with --url.`
          : `${error.message} Back up the running Portico through it: portico backup --url <its URL>.`,
      );
    }
    throw new CliError(errorMessage(error));
  }
}
