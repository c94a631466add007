import type * as UpstreamCheck from '../upstream-check';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type GatewayCredentials } from '../../upstream/upstream-credentials';
import { CliError } from '../cli-error';
import { loadOnUse } from '../../common/load-on-use';
import { integer } from '../options';

interface UpstreamOptions {
  transport: 'streamable-http' | 'sse';
  header: Record<string, string>;
  oauth?: boolean;
  clientCredentials?: boolean;
  clientId?: string;
  scope?: string;
  redirectPort: number;
  call: UpstreamCheck.ToolCall[];
  read: string[];
  prompt: UpstreamCheck.PromptGet[];
  elicit?: Record<string, unknown>;
  json?: boolean;
}

/**
 * `portico upstream <url>`: an MCP server as Portico's gateways see it, with the gateway's own
 * upstream code and no database. For operators checking an upstream before registering it, and
 * for the MCP conformance suite's client scenarios.
 */
export function registerUpstream(program: Command): void {
  program
    .command('upstream')
    .description(
      'Connect to an MCP server as a Portico gateway does (era probe, OAuth, headers), list what it offers, and call its tools',
    )
    .argument('<url>', 'the MCP endpoint (Streamable HTTP, or HTTP+SSE with --transport sse)')
    .addOption(
      new Option('--transport <transport>', 'how the upstream is reached')
        .choices(['streamable-http', 'sse'])
        .default('streamable-http'),
    )
    .option(
      '--header <name:value>',
      'a header sent with every request (repeatable); not for secrets, which the process list shows: a bearer token goes in PORTICO_UPSTREAM_TOKEN',
      collectHeader,
      {},
    )
    .option('--oauth', 'authorize with OAuth as the gateway’s account (a browser consents)')
    .option('--client-credentials', 'authorize with the OAuth client credentials grant')
    .option(
      '--client-id <id>',
      'an OAuth client registered beforehand, its secret in PORTICO_UPSTREAM_CLIENT_SECRET (without: one is registered)',
    )
    .option('--scope <scopes>', 'the OAuth scopes to ask for (default: what the upstream asks)')
    .option(
      '--redirect-port <port>',
      'the loopback port the provider sends the browser back to (0: any)',
      integer(0, 65535),
      0,
    )
    .option(
      '--call <tool [arguments]>',
      'call a tool, arguments as JSON after a space: --call \'add {"a":1}\' (repeatable)',
      collectCall,
      [],
    )
    .option('--read <uri>', 'read a resource (repeatable)', collect, [])
    .option(
      '--prompt <name [arguments]>',
      'get a prompt, arguments as JSON after a space (repeatable)',
      collectPrompt,
      [],
    )
    .option(
      '--elicit <content>',
      'accept the upstream’s elicitations with this JSON content (default: decline them)',
      jsonObject,
    )
    .option('--json', 'print the report as JSON')
    .action(async (url: string, options: UpstreamOptions) => {
      const { checkUpstream } = loadOnUse<typeof UpstreamCheck>(
        require.resolve('../upstream-check'),
      );
      const report = await checkUpstream(
        {
          url: httpUrl(url),
          transport: options.transport,
          credentials: credentialsOf(options, process.env),
          calls: options.call,
          reads: options.read,
          prompts: options.prompt,
          elicitation: options.elicit,
          redirectPort: options.redirectPort,
        },
        process.env,
        {
          authorize: (address) => {
            process.stderr.write(
              `Open this address to let Portico use the upstream:\n  ${address}\n`,
            );
            return Promise.resolve();
          },
          note: (line) => process.stderr.write(`portico: ${line}\n`),
        },
      );
      process.stdout.write(
        options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report),
      );
      const failed = [...report.calls, ...report.reads, ...report.promptsGot].filter(
        (step) => step.error !== undefined,
      );
      if (failed.length > 0) throw new CliError(`${failed.length} step(s) failed`);
    });
}

/**
 * The credentials, as a gateway holds them. Secrets come from the environment, never from
 * arguments, which other users can see.
 */
function credentialsOf(options: UpstreamOptions, env: NodeJS.ProcessEnv): GatewayCredentials {
  const clientSecret = env.PORTICO_UPSTREAM_CLIENT_SECRET || undefined;
  const token = env.PORTICO_UPSTREAM_TOKEN || undefined;
  if (options.oauth && options.clientCredentials)
    throw new CliError('Give --oauth or --client-credentials, not both');
  if (options.oauth || options.clientCredentials) {
    if (token)
      throw new CliError('PORTICO_UPSTREAM_TOKEN is a fixed token: leave it out with OAuth');
    if (options.clientCredentials && (!options.clientId || !clientSecret))
      throw new CliError(
        '--client-credentials needs --client-id, and its secret in PORTICO_UPSTREAM_CLIENT_SECRET',
      );
    return {
      type: 'oauth',
      mode: options.clientCredentials ? 'client-credentials' : 'shared',
      ...(options.clientId ? { clientId: options.clientId } : {}),
      ...(options.clientId && clientSecret ? { clientSecret } : {}),
      ...(options.scope ? { scope: options.scope } : {}),
    };
  }
  if (options.clientId || options.scope)
    throw new CliError('--client-id and --scope go with --oauth or --client-credentials');
  const headers = {
    ...options.header,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
  return Object.keys(headers).length > 0 ? { type: 'headers', headers } : { type: 'none' };
}

function httpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`Not a URL: '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`Not an http(s) URL: '${raw}'`);
  return url.href;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function collectHeader(value: string, previous: Record<string, string>): Record<string, string> {
  const colon = value.indexOf(':');
  const name = value.slice(0, colon).trim();
  if (colon <= 0 || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
    throw new InvalidArgumentError('give it as name:value');
  return { ...previous, [name]: value.slice(colon + 1).trim() };
}

function collectCall(value: string, previous: UpstreamCheck.ToolCall[]): UpstreamCheck.ToolCall[] {
  const [name, json] = nameAndJson(value);
  return [...previous, { name, ...(json === undefined ? {} : { arguments: jsonObject(json) }) }];
}

function collectPrompt(
  value: string,
  previous: UpstreamCheck.PromptGet[],
): UpstreamCheck.PromptGet[] {
  const [name, json] = nameAndJson(value);
  const args = json === undefined ? undefined : jsonObject(json);
  if (args && Object.values(args).some((arg) => typeof arg !== 'string'))
    throw new InvalidArgumentError('prompt arguments are strings');
  return [...previous, { name, ...(args ? { arguments: args as Record<string, string> } : {}) }];
}

/** `name` or `name {json}`: tool and prompt names hold no whitespace. */
function nameAndJson(value: string): [string, string | undefined] {
  const match = /^(\S+)(?:\s+(.*))?$/s.exec(value.trim());
  if (!match) throw new InvalidArgumentError('give a name, then optionally JSON arguments');
  return [match[1]!, match[2]];
}

function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidArgumentError('give a JSON object');
  return parsed as Record<string, unknown>;
}

function formatReport(report: UpstreamCheck.UpstreamReport): string {
  const lines = [
    `${report.url}: ${report.era === '2026-07-28' ? 'MCP' : 'MCP session'} ${report.protocolVersion ?? '?'}${report.server ? `, ${report.server.name} ${report.server.version}` : ''}`,
    `tools (${report.tools.length}): ${report.tools.join(', ') || '-'}`,
    ...report.unusableTools.map(({ name, reason }) => `  not usable: ${name} (${reason})`),
    `resources (${report.resources.length}): ${report.resources.join(', ') || '-'}`,
    ...(report.resourceTemplates.length > 0
      ? [`resource templates: ${report.resourceTemplates.join(', ')}`]
      : []),
    `prompts (${report.prompts.length}): ${report.prompts.join(', ') || '-'}`,
    ...report.calls.map((step) => `call ${step.target}: ${outcome(step)}`),
    ...report.reads.map((step) => `read ${step.target}: ${outcome(step)}`),
    ...report.promptsGot.map((step) => `prompt ${step.target}: ${outcome(step)}`),
  ];
  return `${lines.join('\n')}\n`;
}

function outcome(step: UpstreamCheck.StepOutcome): string {
  if (step.error !== undefined) return `failed: ${step.error}`;
  const result = step.result as { isError?: boolean; content?: { type: string; text?: string }[] };
  const text = result.content?.find((block) => block.type === 'text')?.text;
  const summary = text === undefined ? '' : ` ${JSON.stringify(text.slice(0, 200))}`;
  return `${result.isError ? 'tool error' : 'ok'}${summary}`;
}
