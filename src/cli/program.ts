import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { ConfigError } from '../config/load-config';
import { projectRoot } from '../common/project-root';
import { DataDirLockedError } from '../database/data-dir-lock';
import { CliError } from './cli-error';
import { registerBackup } from './commands/backup.command';
import { registerConfig } from './commands/config.command';
import { registerHealth } from './commands/health.command';
import { registerMigrate } from './commands/migrate.command';
import { registerRegistry } from './commands/registry.command';
import { registerRescan } from './commands/rescan.command';
import { registerRestore } from './commands/restore.command';
import { registerStart } from './commands/start.command';
import { registerToken } from './commands/token.command';
import { registerUpstream } from './commands/upstream.command';

/**
 * The `portico` command. Each command registers itself from its own file; those that drive a
 * running Portico use PorticoClient, those that work on the embedded data directory load the
 * database code only when they run, so that `portico health` starts fast.
 */
export function buildProgram(): Command {
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  const program = new Command('portico')
    .description(
      'Portico, the MCP gateway: run it, migrate it, back it up, and drive a running one',
    )
    .version(version)
    .showHelpAfterError();
  for (const register of [
    registerStart,
    registerMigrate,
    registerHealth,
    registerBackup,
    registerRestore,
    registerToken,
    registerConfig,
    registerRescan,
    registerUpstream,
    registerRegistry,
  ])
    register(program);
  return program;
}

/** Runs the command line; a known failure is one line on stderr and a non-zero exit code. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (
      error instanceof CliError ||
      error instanceof ConfigError ||
      error instanceof DataDirLockedError
    ) {
      process.stderr.write(`portico: ${error.message}\n`);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
      return;
    }
    throw error;
  }
}
