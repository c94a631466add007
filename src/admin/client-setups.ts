import { gatewaySlug } from '../gateways/gateway-slug';

/** One MCP client's ready-to-paste set-up for one virtual server. */
export interface ClientSetup {
  id: string;
  client: string;
  /** Where the snippet goes. */
  where: string;
  /** How it signs in: OAuth in the browser, or the bearer token below. */
  oauth: { snippet: string; note: string } | null;
  token: { snippet: string; note: string };
  /** A link to the client's own documentation of this format. */
  docs: string;
}

export interface ClientSetupInput {
  serverName: string;
  mcpUrl: string;
  /** The token just issued, or null: the snippets then hold a placeholder. */
  token: string | null;
}

export const TOKEN_PLACEHOLDER = '<token>';

/** The name a client lists the server under: letters, digits and dashes. */
export function clientServerName(serverName: string): string {
  return `portico-${gatewaySlug(serverName) || 'server'}`.slice(0, 64);
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A shell word: single-quoted unless it is plainly safe. */
function sh(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function command(argv: string[]): string {
  return argv.map(sh).join(' ');
}

/** The MCP Inspector CLI's arguments after `npx @modelcontextprotocol/inspector --cli`. */
export function inspectorCliArgs(mcpUrl: string, token: string): string[] {
  return [
    mcpUrl,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${token}`,
    '--method',
    'tools/list',
  ];
}

/**
 * Set-ups for Claude Desktop, Claude Code, VS Code, Cursor and the MCP Inspector, in each
 * client's documented format. Clients that implement MCP authorization get an OAuth variant with
 * the URL alone; every client gets a token variant.
 */
export function clientSetups(input: ClientSetupInput): ClientSetup[] {
  const name = clientServerName(input.serverName);
  const url = input.mcpUrl;
  const token = input.token ?? TOKEN_PLACEHOLDER;
  const bearer = `Bearer ${token}`;
  return [
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where:
        'claude_desktop_config.json (Settings → Developer → Edit Config). Claude Desktop starts local servers, so mcp-remote bridges to the URL.',
      oauth: {
        snippet: json({
          mcpServers: { [name]: { command: 'npx', args: ['-y', 'mcp-remote', url] } },
        }),
        note: 'mcp-remote opens the browser to sign in to Portico (OAuth) the first time.',
      },
      token: {
        snippet: json({
          mcpServers: {
            [name]: {
              command: 'npx',
              args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${PORTICO_AUTH}'],
              env: { PORTICO_AUTH: bearer },
            },
          },
        }),
        note: 'The header is passed through an environment variable, as mcp-remote recommends, so that no space breaks the argument.',
      },
      docs: 'https://modelcontextprotocol.io/quickstart/user',
    },
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'A terminal (add --scope user to use it in every project).',
      oauth: {
        snippet: command(['claude', 'mcp', 'add', '--transport', 'http', name, url]),
        note: 'Then run /mcp in Claude Code and choose Authenticate to sign in (OAuth).',
      },
      token: {
        snippet: command([
          'claude',
          'mcp',
          'add',
          '--transport',
          'http',
          name,
          url,
          '--header',
          `Authorization: ${bearer}`,
        ]),
        note: 'The token is stored in Claude Code’s configuration.',
      },
      docs: 'https://docs.anthropic.com/en/docs/claude-code/mcp',
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json in the workspace (or MCP: Open User Configuration).',
      oauth: {
        snippet: json({ servers: { [name]: { type: 'http', url } } }),
        note: 'VS Code offers to sign in (OAuth) when the server first asks for it.',
      },
      token: {
        snippet: json({
          servers: { [name]: { type: 'http', url, headers: { Authorization: bearer } } },
        }),
        note: 'Keep a file with a token out of version control, or use the user configuration.',
      },
      docs: 'https://code.visualstudio.com/docs/copilot/customization/mcp-servers',
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project).',
      oauth: {
        snippet: json({ mcpServers: { [name]: { url } } }),
        note: 'Cursor opens the browser to sign in (OAuth) when the server asks for it.',
      },
      token: {
        snippet: json({ mcpServers: { [name]: { url, headers: { Authorization: bearer } } } }),
        note: 'The token is read from the file.',
      },
      docs: 'https://docs.cursor.com/context/model-context-protocol',
    },
    {
      id: 'inspector',
      client: 'MCP Inspector',
      where:
        'A terminal. The UI (npx @modelcontextprotocol/inspector): Transport Type “Streamable HTTP”, this URL, and under Authentication the header Authorization with “Bearer <token>”; or its OAuth flow.',
      oauth: null,
      token: {
        snippet: command([
          'npx',
          '@modelcontextprotocol/inspector',
          '--cli',
          ...inspectorCliArgs(url, token),
        ]),
        note: 'Lists the server’s tools from the command line.',
      },
      docs: 'https://modelcontextprotocol.io/docs/tools/inspector',
    },
  ];
}
