import { type Command } from 'commander';
import { urlOption } from '../options';
import { PorticoClient } from '../rest-client';

interface RescanEntry {
  kind: string;
  name: string;
  reason: string | null;
}

interface RescanResult {
  gatewaySlug: string;
  scanned: number;
  withFindings: number;
  quarantined: RescanEntry[];
  released: RescanEntry[];
}

/**
 * `portico rescan`: a running Portico scans pinned definitions again with its scanner's current
 * rules (after an upgrade) and holds back what each gateway's finding threshold says.
 */
export function registerRescan(program: Command): void {
  program
    .command('rescan')
    .description(
      'Scan the definitions of every gateway (admins), or of one, again, and quarantine what the finding threshold holds',
    )
    .option('--gateway <id>', 'only this gateway (operators may rescan the gateways they manage)')
    .option('--json', 'print the results as JSON')
    .addOption(urlOption())
    .action(async (options: { gateway?: string; json?: boolean; url?: string }) => {
      const client = PorticoClient.from(options.url, process.env);
      const results = options.gateway
        ? [
            await client.request<RescanResult>(
              'POST',
              `/api/v1/gateways/${encodeURIComponent(options.gateway)}/rescan`,
            ),
          ]
        : (await client.request<{ items: RescanResult[] }>('POST', '/api/v1/gateways/rescan'))
            .items;
      process.stdout.write(
        options.json ? `${JSON.stringify(results, null, 2)}\n` : results.map(report).join(''),
      );
    });
}

/** One line for the gateway, then one for each entry held back or let through. */
function report(result: RescanResult): string {
  const lines = [
    `${result.gatewaySlug}: ${result.scanned} definitions scanned, ${result.withFindings} with findings, ${result.quarantined.length} quarantined, ${result.released.length} released`,
  ];
  for (const entry of result.quarantined)
    lines.push(`  quarantined ${entry.kind} ${entry.name} (${entry.reason ?? 'finding'})`);
  for (const entry of result.released) lines.push(`  released ${entry.kind} ${entry.name}`);
  return lines
    .map(
      (text) => `${text}
`,
    )
    .join('');
}
