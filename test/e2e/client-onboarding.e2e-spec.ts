import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { loginAgent } from '../support/admin-browser-session';
import { textOf } from '../support/html-text';
import { startTestApp, type TestApp } from '../support/test-app';

const INSPECTOR_CLI = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');

/** The text of the snippet `data-setup` names on the page, as a person would copy it. */
function snippet(html: string, name: string): string {
  const match = new RegExp(`<code class="copy" data-setup="${name}">([\\s\\S]*?)</code>`).exec(
    html,
  );
  if (!match) throw new Error(`No snippet ${name} on the page`);
  return textOf(match[1]!.replace(/\n/g, ' '));
}

/** Shell words of a command line with single-quoted words, as the snippets write them. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('client onboarding on the server page', () => {
  let app: TestApp;
  let upstream: UpstreamFixture;
  let serverId: string;

  beforeAll(async () => {
    upstream = await startUpstream({ tools: [echoTool('now', 'clock')] });
    app = await startTestApp({ publicUrl: true });
    await app
      .api()
      .put('/api/v1/config')
      .send({
        apiVersion: 'portico/v1',
        gateways: [{ name: 'Clock', url: upstream.url }],
        servers: [{ name: 'Time desk', tools: ['clock-now'] }],
      })
      .expect(200);
    const servers = (await app.api().get('/api/v1/servers').expect(200)).body as {
      items: { id: string }[];
    };
    serverId = servers.items[0]!.id;
  });

  afterAll(async () => {
    await app.close();
    await upstream.close();
  });

  it('shows each client’s set-up with the server’s real URL, and a token issued by the button connects', async () => {
    const mcpUrl = `${app.config.publicUrl}/servers/${serverId}/mcp`;
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/servers\//);
    const { agent, csrf } = await loginAgent(app.baseUrl);

    const page = (await agent.get(`/admin/servers/${serverId}`).expect(200)).text;
    for (const client of ['Claude Desktop', 'Claude Code', 'VS Code', 'Cursor', 'MCP Inspector'])
      expect(page).toContain(`<summary>${client}</summary>`);
    const vscodeOAuth = JSON.parse(snippet(page, 'vscode-oauth')) as {
      servers: Record<string, { type: string; url: string }>;
    };
    expect(vscodeOAuth.servers['portico-time-desk']).toEqual({ type: 'http', url: mcpUrl });
    expect(snippet(page, 'cursor-token')).toContain('Bearer <token>');

    const issued = await agent
      .post(`/admin/servers/${serverId}/tokens`)
      .type('form')
      .send({ _csrf: csrf, ttlSeconds: '3600' })
      .expect(200);
    const cursor = JSON.parse(snippet(issued.text, 'cursor-token')) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    const entry = cursor.mcpServers['portico-time-desk']!;
    expect(entry.url).toBe(mcpUrl);
    expect(entry.headers.Authorization).toMatch(/^Bearer \S{20,}$/);

    // Connected as Cursor would be, with the pasted URL and header.
    const client = new Client({ name: 'onboarding', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), {
        requestInit: { headers: entry.headers },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['clock-now']);
    } finally {
      await client.close();
    }

    // The MCP Inspector command, run as pasted (its CLI is what `--cli` starts).
    const inspector = shellWords(snippet(issued.text, 'inspector-token'));
    expect(inspector.slice(0, 3)).toEqual(['npx', '@modelcontextprotocol/inspector', '--cli']);
    // The CLI finds its own package.json relative to the working directory.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [INSPECTOR_CLI, ...inspector.slice(3)],
      { cwd: dirname(INSPECTOR_CLI) },
    );
    const listed = JSON.parse(stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['clock-now']);

    // The token scopes to this server only, and is not shown again.
    const token = entry.headers.Authorization!.slice('Bearer '.length);
    expect(snippet(issued.text, 'claude-code-token')).toContain(`'Authorization: Bearer ${token}'`);
    expect((await agent.get(`/admin/servers/${serverId}`).expect(200)).text).not.toContain(token);
    const tokens = (await app.api().get('/api/v1/tokens').expect(200)).body as {
      items: { serverIds: string[]; prefix: string }[];
    };
    expect(tokens.items).toContainEqual(
      expect.objectContaining({ serverIds: [serverId], prefix: token.slice(0, 10) }),
    );
  });
});
