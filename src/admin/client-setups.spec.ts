import { z } from 'zod';
import { clientServerName, clientSetups, TOKEN_PLACEHOLDER } from './client-setups';

const URL_ = 'https://portico.example.com/servers/6f1c2a9e-0000-4000-8000-000000000001/mcp';
const TOKEN = 'pt_abcDEF123-_xyz';
const NAME = 'portico-support-agent';

/** Each client's documented configuration format, strictly: an unknown key fails. */
const claudeDesktop = z
  .object({
    mcpServers: z.record(
      z.string(),
      z
        .object({
          command: z.string(),
          args: z.array(z.string()),
          env: z.record(z.string(), z.string()).optional(),
        })
        .strict(),
    ),
  })
  .strict();
const vscode = z
  .object({
    servers: z.record(
      z.string(),
      z
        .object({
          type: z.literal('http'),
          url: z.url(),
          headers: z.record(z.string(), z.string()).optional(),
        })
        .strict(),
    ),
  })
  .strict();
const cursor = z
  .object({
    mcpServers: z.record(
      z.string(),
      z.object({ url: z.url(), headers: z.record(z.string(), z.string()).optional() }).strict(),
    ),
  })
  .strict();

function setups(token: string | null) {
  const all = clientSetups({ serverName: 'Support agent', mcpUrl: URL_, token });
  return Object.fromEntries(all.map((setup) => [setup.id, setup]));
}

describe('client set-ups', () => {
  it('covers the five clients, each with a token variant and, where the client does OAuth, a URL-only one', () => {
    const all = setups(TOKEN);
    expect(Object.keys(all)).toEqual([
      'claude-desktop',
      'claude-code',
      'vscode',
      'cursor',
      'inspector',
    ]);
    for (const setup of Object.values(all)) {
      expect(setup.token.snippet).toContain(URL_);
      expect(setup.token.snippet).toContain(TOKEN);
      if (setup.oauth) {
        expect(setup.oauth.snippet).toContain(URL_);
        expect(setup.oauth.snippet).not.toContain('Authorization');
      }
    }
    expect(all.inspector!.oauth).toBeNull();
  });

  it('writes Claude Desktop’s claude_desktop_config.json, bridging with mcp-remote', () => {
    const { oauth, token } = setups(TOKEN)['claude-desktop']!;
    const withToken = claudeDesktop.parse(JSON.parse(token.snippet));
    expect(withToken.mcpServers[NAME]).toEqual({
      command: 'npx',
      args: ['-y', 'mcp-remote', URL_, '--header', 'Authorization:${PORTICO_AUTH}'],
      env: { PORTICO_AUTH: `Bearer ${TOKEN}` },
    });
    const withOAuth = claudeDesktop.parse(JSON.parse(oauth!.snippet));
    expect(withOAuth.mcpServers[NAME]!.args).toEqual(['-y', 'mcp-remote', URL_]);
  });

  it('writes VS Code’s .vscode/mcp.json with an http server', () => {
    const { oauth, token } = setups(TOKEN).vscode!;
    expect(vscode.parse(JSON.parse(token.snippet)).servers[NAME]).toEqual({
      type: 'http',
      url: URL_,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(vscode.parse(JSON.parse(oauth!.snippet)).servers[NAME]).toEqual({
      type: 'http',
      url: URL_,
    });
  });

  it('writes Cursor’s mcp.json with a remote server', () => {
    const { oauth, token } = setups(TOKEN).cursor!;
    expect(cursor.parse(JSON.parse(token.snippet)).mcpServers[NAME]).toEqual({
      url: URL_,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(cursor.parse(JSON.parse(oauth!.snippet)).mcpServers[NAME]).toEqual({ url: URL_ });
  });

  it('writes the Claude Code and MCP Inspector commands with the header as one quoted word', () => {
    const all = setups(TOKEN);
    expect(all['claude-code']!.token.snippet).toBe(
      `claude mcp add --transport http ${NAME} ${URL_} --header 'Authorization: Bearer ${TOKEN}'`,
    );
    expect(all['claude-code']!.oauth!.snippet).toBe(
      `claude mcp add --transport http ${NAME} ${URL_}`,
    );
    expect(all.inspector!.token.snippet).toBe(
      `npx @modelcontextprotocol/inspector --cli ${URL_} --transport http --header 'Authorization: Bearer ${TOKEN}' --method tools/list`,
    );
  });

  it('holds a placeholder until a token is issued', () => {
    const all = setups(null);
    expect(all.cursor!.token.snippet).toContain(`Bearer ${TOKEN_PLACEHOLDER}`);
    expect(all['claude-code']!.token.snippet).toContain(
      `'Authorization: Bearer ${TOKEN_PLACEHOLDER}'`,
    );
  });

  it('names the server in the client with safe characters only', () => {
    expect(clientServerName("Support agent'; rm -rf /")).toBe('portico-support-agent-rm-rf');
    expect(clientServerName('***')).toBe('portico-server');
  });
});
