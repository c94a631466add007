import {
  MACHINE_CLIENT,
  type OAuthUpstreamFixture,
  startOAuthUpstream,
} from '../fixtures/oauth-upstream';
import {
  type ModernEverythingServer,
  startModernEverythingServer,
} from '../fixtures/modern-everything-server';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { type CommandRun, portico } from '../support/portico-command';

interface Report {
  era: string;
  protocolVersion: string;
  server: { name: string } | null;
  tools: string[];
  unusableTools: { name: string; reason: string }[];
  resources: string[];
  calls: { target: string; result?: { content: { text?: string }[] }; error?: string }[];
  reads: { target: string; error?: string }[];
  authorizations: number;
}

/**
 * `portico upstream` in its own process with only PATH set. `browser` is handed each address
 * the command asks a person to open.
 */
async function upstream(
  args: string[],
  browser?: (address: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<CommandRun> {
  const opened = new Map<string, Promise<void>>();
  const run = await portico(['upstream', ...args], env, (stderr) => {
    for (const [, address] of stderr.matchAll(/use the upstream:\n {2}(\S+)\n/g))
      if (address && browser && !opened.has(address)) opened.set(address, browser(address));
  });
  await Promise.all(opened.values());
  return run;
}

function reportOf(run: CommandRun): Report {
  if (run.code !== 0) throw new Error(`portico upstream failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Report;
}

describe('portico upstream', () => {
  let modern: ModernEverythingServer;
  let legacy: UpstreamFixture;
  let oauth: OAuthUpstreamFixture;

  beforeAll(async () => {
    modern = await startModernEverythingServer();
    legacy = await startUpstream({
      name: 'legacy',
      tools: [echoTool('echo', 'legacy')],
      requiredHeaders: { authorization: 'Bearer s3cret', 'x-tenant': 'acme' },
    });
    oauth = await startOAuthUpstream();
  });

  afterAll(async () => {
    await modern.close();
    await legacy.close();
    await oauth.close();
  });

  it('reads a 2026-07-28 upstream as sync does and calls its tools, answering input rounds', async () => {
    const report = reportOf(
      await upstream([
        modern.url,
        '--call',
        'test_simple_text',
        '--call',
        'test_input_required_result_elicitation',
        '--elicit',
        '{"name":"Ada"}',
        '--read',
        'test://static-text',
        '--json',
      ]),
    );
    expect(report).toMatchObject({
      era: '2026-07-28',
      protocolVersion: '2026-07-28',
      server: { name: 'portico-modern-everything' },
      unusableTools: [],
    });
    expect(report.tools).toContain('test_input_required_result_elicitation');
    expect(report.resources).toContain('test://static-text');
    expect(report.calls.map((call) => call.result?.content[0]?.text)).toEqual([
      'This is a simple text response for testing.',
      'Hello, Ada!',
    ]);
    expect(report.reads).toEqual([expect.objectContaining({ target: 'test://static-text' })]);
  });

  it('opens a 2025 session on an upstream that has only that, and exits 1 when a step fails', async () => {
    const run = await upstream(
      [
        legacy.url,
        '--header',
        'X-Tenant: acme',
        '--call',
        'echo {"word":"hi"}',
        '--call',
        'missing',
      ],
      undefined,
      { PORTICO_UPSTREAM_TOKEN: 's3cret' },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/: MCP session 2025-\d\d-\d\d, legacy /);
    expect(run.stdout).toContain('call echo: ok "legacy:echo"');
    expect(run.stdout).toMatch(/call missing: failed: .*missing/);
    expect(run.stderr).toContain('portico: 1 step(s) failed');
    expect(legacy.calls.map((call) => [call.name, call.args])).toEqual([['echo', { word: 'hi' }]]);
    const refused = await upstream([legacy.url, '--header', 'X-Tenant: acme']);
    expect(refused).toMatchObject({
      code: 1,
      stderr: `portico: Cannot use ${legacy.url}: HTTP 401: {"error":"unauthorized"}\n`,
    });
  });

  it('authorizes with OAuth through a loopback redirect, as the gateway’s account', async () => {
    const report = reportOf(
      await upstream(
        [oauth.mcpUrl('shared'), '--oauth', '--call', 'whoami', '--json'],
        async (address) => {
          const back = await oauth.consent(address, 'alice');
          expect(back.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
          await (await fetch(back)).text();
        },
      ),
    );
    expect(report.authorizations).toBe(1);
    expect(report.calls[0]?.result?.content[0]?.text).toBe('account:alice');
  });

  it('authorizes with client credentials, no browser', async () => {
    const report = reportOf(
      await upstream(
        [
          oauth.mcpUrl('machine'),
          '--client-credentials',
          '--client-id',
          MACHINE_CLIENT.id,
          '--call',
          'whoami',
          '--json',
        ],
        undefined,
        { PORTICO_UPSTREAM_CLIENT_SECRET: MACHINE_CLIENT.secret },
      ),
    );
    expect(report.calls[0]?.result?.content[0]?.text).toBe(`account:client:${MACHINE_CLIENT.id}`);
  });

  it('refuses what is not an http(s) URL, and OAuth options without OAuth', async () => {
    const notUrl = await upstream(['stdio:server']);
    expect(notUrl).toMatchObject({
      code: 1,
      stderr: "portico: Not an http(s) URL: 'stdio:server'\n",
    });
    const loose = await upstream([modern.url, '--scope', 'mcp']);
    expect(loose).toMatchObject({
      code: 1,
      stderr: 'portico: --client-id and --scope go with --oauth or --client-credentials\n',
    });
  });
});
