import { type Command } from 'commander';
import { integer, urlOption } from '../options';
import { PorticoClient } from '../rest-client';

interface TokenResponse {
  accessToken: string;
  tokenType: string;
  expiresAt: string;
}

export function registerToken(program: Command): void {
  const token = program.command('token').description('Bearer tokens of a running Portico');
  token
    .command('create')
    .description(
      'Issue a token that may only use one virtual server’s MCP endpoint; prints the token',
    )
    .requiredOption('--server <id>', 'the virtual server’s id')
    .option(
      '--ttl <seconds>',
      'lifetime (default: TOKEN_TTL_SECONDS)',
      integer(60, 365 * 24 * 3600),
    )
    .option('--json', 'print { accessToken, tokenType, expiresAt } instead')
    .addOption(urlOption())
    .action(async (options: { server: string; ttl?: number; json?: boolean; url?: string }) => {
      const client = PorticoClient.from(options.url, process.env);
      const issued = await client.request<TokenResponse>(
        'POST',
        `/api/v1/servers/${encodeURIComponent(options.server)}/tokens`,
        options.ttl === undefined ? {} : { ttlSeconds: options.ttl },
      );
      process.stdout.write(
        options.json ? `${JSON.stringify(issued, null, 2)}\n` : `${issued.accessToken}\n`,
      );
    });
}
