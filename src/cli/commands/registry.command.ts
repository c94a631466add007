import { type Command } from 'commander';
import { CliError } from '../cli-error';
import { integer, urlOption } from '../options';
import { PorticoClient } from '../rest-client';

interface Entry {
  server: {
    name: string;
    version: string;
    description: string;
    remotes?: { type: string; url: string; headers?: { name: string; isRequired?: boolean }[] }[];
    packages?: {
      registryType: string;
      identifier: string;
      version?: string;
      environmentVariables?: { name: string; isRequired?: boolean }[];
    }[];
  };
}

interface ImportResult {
  outcome: 'created' | 'changes' | 'updated' | 'unchanged';
  changes: { field: string; before: string | null; after: string | null }[];
  gateway: { id: string; name: string; status: string; toolCount: number };
}

/** `NAME=VALUE` options, collected into a map. */
function pairs(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new CliError(`Expected NAME=VALUE, got '${value}'`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

function registryQuery(registry: string | undefined): string {
  return registry === undefined ? '' : `registry=${encodeURIComponent(registry)}`;
}

/** What an entry offers, one line each: remotes with their headers, packages with their env. */
function describeEntry(entry: Entry): string {
  const { server } = entry;
  const lines = [`${server.name} ${server.version}`, `  ${server.description}`];
  (server.remotes ?? []).forEach((remote, index) => {
    const headers = (remote.headers ?? []).map((h) => `${h.name}${h.isRequired ? '*' : ''}`);
    lines.push(
      `  remote ${index}: ${remote.type} ${remote.url}${headers.length ? ` headers: ${headers.join(', ')}` : ''}`,
    );
  });
  (server.packages ?? []).forEach((pkg, index) => {
    const env = (pkg.environmentVariables ?? []).map((v) => `${v.name}${v.isRequired ? '*' : ''}`);
    lines.push(
      `  package ${index}: ${pkg.registryType} ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ''}${env.length ? ` env: ${env.join(', ')}` : ''}`,
    );
  });
  return `${lines.join('\n')}\n`;
}

export function registerRegistry(program: Command): void {
  const registry = program
    .command('registry')
    .description(
      'Browse the MCP Registries a running Portico is configured with, and import from them',
    );

  registry
    .command('search')
    .description("Search a registry's servers")
    .argument('[text]', 'a substring of the names')
    .option('--registry <url>', 'one of the configured registries (default: the first)')
    .option('--limit <n>', 'entries wanted', integer(1, 100))
    .option('--cursor <cursor>', "a previous answer's next cursor")
    .option('--json', 'print the answer as JSON')
    .addOption(urlOption())
    .action(
      async (
        text: string | undefined,
        options: {
          registry?: string;
          limit?: number;
          cursor?: string;
          json?: boolean;
          url?: string;
        },
      ) => {
        const client = PorticoClient.from(options.url, process.env);
        const query = [
          registryQuery(options.registry),
          text ? `search=${encodeURIComponent(text)}` : '',
          options.limit ? `limit=${options.limit}` : '',
          options.cursor ? `cursor=${encodeURIComponent(options.cursor)}` : '',
        ].filter((part) => part !== '');
        const page = await client.request<{ servers: Entry[]; nextCursor: string | null }>(
          'GET',
          `/api/v1/mcp-registry/servers${query.length ? `?${query.join('&')}` : ''}`,
        );
        if (options.json) {
          process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
          return;
        }
        for (const entry of page.servers)
          process.stdout.write(
            `${entry.server.name}\t${entry.server.version}\t${entry.server.description}\n`,
          );
        if (page.nextCursor) process.stdout.write(`next: --cursor ${page.nextCursor}\n`);
      },
    );

  registry
    .command('show')
    .description(
      'One server of a registry: its remotes and packages, and what each asks for (* required)',
    )
    .argument('<name>', 'the server name, namespace/name')
    .option('--version <version>', "an exact version (default: 'latest')")
    .option('--registry <url>', 'one of the configured registries (default: the first)')
    .option('--json', 'print the entry as JSON')
    .addOption(urlOption())
    .action(
      async (
        name: string,
        options: { version?: string; registry?: string; json?: boolean; url?: string },
      ) => {
        const client = PorticoClient.from(options.url, process.env);
        const query = registryQuery(options.registry);
        const entry = await client.request<Entry>(
          'GET',
          `/api/v1/mcp-registry/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(options.version ?? 'latest')}${query ? `?${query}` : ''}`,
        );
        process.stdout.write(
          options.json ? `${JSON.stringify(entry, null, 2)}\n` : describeEntry(entry),
        );
      },
    );

  registry
    .command('import')
    .description(
      'Turn a server into a gateway; a server imported before shows what would change, applied with --yes',
    )
    .argument('<name>', 'the server name, namespace/name')
    .option('--version <version>', "an exact version (default: 'latest')")
    .option('--registry <url>', 'one of the configured registries (default: the first)')
    .option('--gateway-name <name>', "the gateway's name (default: the entry's title)")
    .option('--remote <index>', 'which remote (default: the first)', integer(0, 31))
    .option('--package <index>', 'which package, launched over stdio', integer(0, 31))
    .option('--var <NAME=VALUE>', 'a URL variable of the remote (repeatable)', pairs)
    .option('--header <NAME=VALUE>', 'a header of the remote, stored encrypted (repeatable)', pairs)
    .option(
      '--env <NAME=VALUE>',
      'an environment variable of the package, stored encrypted (repeatable)',
      pairs,
    )
    .option('--yes', 'apply the changes of a re-import')
    .option('--json', 'print the answer as JSON')
    .addOption(urlOption())
    .action(
      async (
        name: string,
        options: {
          version?: string;
          registry?: string;
          gatewayName?: string;
          remote?: number;
          package?: number;
          var?: Record<string, string>;
          header?: Record<string, string>;
          env?: Record<string, string>;
          yes?: boolean;
          json?: boolean;
          url?: string;
        },
      ) => {
        const client = PorticoClient.from(options.url, process.env);
        const result = await client.request<ImportResult>('POST', '/api/v1/mcp-registry/import', {
          name,
          ...(options.version ? { version: options.version } : {}),
          ...(options.registry ? { registry: options.registry } : {}),
          ...(options.gatewayName ? { gatewayName: options.gatewayName } : {}),
          ...(options.remote === undefined ? {} : { remote: options.remote }),
          ...(options.package === undefined ? {} : { package: options.package }),
          ...(options.var ? { variables: options.var } : {}),
          ...(options.header ? { headers: options.header } : {}),
          ...(options.env ? { env: options.env } : {}),
          confirm: options.yes === true,
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          return;
        }
        const { gateway } = result;
        for (const change of result.changes)
          process.stdout.write(
            `  ${change.field}: ${change.before ?? '-'} -> ${change.after ?? '-'}\n`,
          );
        const verdict = {
          created: `Created gateway '${gateway.name}' (${gateway.id}): ${gateway.status}, ${gateway.toolCount} tools`,
          changes: `Gateway '${gateway.name}' was imported before; run again with --yes to apply the changes above`,
          updated: `Updated gateway '${gateway.name}' (${gateway.id}): ${gateway.status}, ${gateway.toolCount} tools`,
          unchanged: `Gateway '${gateway.name}' is up to date`,
        }[result.outcome];
        process.stdout.write(`${verdict}\n`);
      },
    );
}
