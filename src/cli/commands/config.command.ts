import { type Command } from 'commander';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseYamlText } from '../../common/yaml-text';
import { utf8Text } from '../../common/untrusted-text';
import { CliError } from '../cli-error';
import { integer, urlOption } from '../options';
import { PorticoClient } from '../rest-client';

interface ApplyResponse {
  applied: boolean;
  plan: string;
  warnings: string[];
}

interface ApplyOptions {
  file: string;
  dryRun?: boolean;
  prune?: boolean;
  timeout: number;
  url?: string;
}

/** `portico export` and `portico apply`: the configuration as one document, kept in Git. */
export function registerConfig(program: Command): void {
  program
    .command('export')
    .description(
      'Write the running Portico’s configuration as YAML (credentials as references to fill in)',
    )
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--json', 'write JSON instead of YAML')
    .addOption(urlOption())
    .action(async (options: { output?: string; json?: boolean; url?: string }) => {
      const client = PorticoClient.from(options.url, process.env);
      const text = options.json
        ? `${JSON.stringify(await client.request('GET', '/api/v1/config'), null, 2)}\n`
        : (await client.download('/api/v1/config?format=yaml')).toString('utf8');
      if (options.output) writeFileSync(options.output, text, { mode: 0o644 });
      else process.stdout.write(text);
    });

  program
    .command('apply')
    .description(
      'Make the running Portico match a configuration file, in one transaction; prints the plan',
    )
    .requiredOption('-f, --file <file>', 'the YAML or JSON document (- for stdin)')
    .option('--dry-run', 'print the plan as a diff and change nothing')
    .option('--prune', 'delete what the file’s sections no longer name')
    .option(
      '--timeout <seconds>',
      'how long to wait for the answer: an apply waits for the syncs of the gateways it creates or reconnects',
      integer(1, 86_400),
      600,
    )
    .addOption(urlOption())
    .action(async (options: ApplyOptions) => {
      const document = readDocument(options.file);
      const client = PorticoClient.from(options.url, process.env);
      const query = new URLSearchParams();
      if (options.dryRun) query.set('dryRun', 'true');
      if (options.prune) query.set('prune', 'true');
      const result = await client.request<ApplyResponse>(
        'PUT',
        `/api/v1/config${query.size ? `?${query}` : ''}`,
        document,
        options.timeout * 1000,
      );
      process.stdout.write(result.plan);
      if (!result.applied) process.stdout.write('Dry run: nothing was changed.\n');
      for (const warning of result.warnings) process.stderr.write(`portico: warning: ${warning}\n`);
    });
}

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = utf8Text(readFileSync(file === '-' ? 0 : file));
  } catch (error) {
    throw new CliError(`Cannot read ${file} as UTF-8 text: ${(error as Error).message}`);
  }
  try {
    return parseYamlText(text, { uniqueKeys: true });
  } catch (error) {
    throw new CliError(`${file} is not YAML: ${(error as Error).message}`);
  }
}
