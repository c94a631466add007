import { type Command } from 'commander';
import { CliError } from '../cli-error';
import { integer, urlOption } from '../options';
import { porticoUrl, reason } from '../rest-client';

export function registerHealth(program: Command): void {
  program
    .command('health')
    .description('Check that a running Portico is ready (GET /readyz): exit 0 if so, 1 if not')
    .addOption(urlOption())
    .option('--timeout <seconds>', 'how long to wait for an answer', integer(1, 300), 5)
    .action(async (options: { url?: string; timeout: number }) => {
      const base = porticoUrl(options.url, process.env);
      let response: Response;
      try {
        response = await fetch(`${base}/readyz`, {
          signal: AbortSignal.timeout(options.timeout * 1000),
        });
      } catch (error) {
        throw new CliError(`Not ready: cannot reach ${base} (${reason(error)})`);
      }
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { detail?: string };
        throw new CliError(
          `Not ready: ${base}/readyz answered ${response.status}${body.detail ? ` — ${body.detail}` : ''}`,
        );
      }
      process.stdout.write(`Ready: ${base}\n`);
    });
}
