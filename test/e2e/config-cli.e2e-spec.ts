import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { portico } from '../support/portico-command';
import { tempDataDir } from '../support/temp-dir';
import { waitFor } from '../support/wait-for';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

describe('portico apply and export', () => {
  let app: TestApp;
  let upstream: UpstreamFixture;
  let env: Record<string, string>;
  const dir = tempDataDir();
  const file = join(dir, 'portico.yaml');

  beforeAll(async () => {
    upstream = await startUpstream({ tools: [echoTool('now', 'clock')] });
    app = await startTestApp();
    env = { PORTICO_URL: app.baseUrl, PORTICO_USERNAME: 'admin', PORTICO_PASSWORD: ADMIN_PASSWORD };
    writeFileSync(
      file,
      [
        'apiVersion: portico/v1',
        'teams:',
        '  - name: platform',
        'gateways:',
        '  - name: Clock',
        `    url: ${upstream.url}`,
        '    team: platform',
        'servers:',
        '  - name: Clocks',
        '    team: platform',
        '    tools: [clock-now]',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await app.close();
    await upstream.close();
  });

  it('prints the plan of a dry run and changes nothing, then applies, then has nothing to do', async () => {
    const dry = await portico(['apply', '-f', file, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('+ team "platform"');
    expect(dry.stdout).toContain('+ gateway "Clock"');
    expect(dry.stdout).toContain('+ server "Clocks"');
    expect(dry.stdout).toContain('Dry run: nothing was changed.');
    const none = (await app.api().get('/api/v1/gateways').expect(200)).body as { total: number };
    expect(none.total).toBe(0);

    const applied = await portico(['apply', '-f', file], { ...env });
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('Plan: 3 to create, 0 to update, 0 to delete.');
    const servers = (await app.api().get('/api/v1/servers').expect(200)).body as {
      items: { name: string; toolIds: string[] }[];
    };
    expect(servers.items.map((s) => [s.name, s.toolIds.length])).toEqual([['Clocks', 1]]);

    const again = await portico(['apply', '-f', file], env);
    expect(again.stdout).toMatch(/^No changes/);
  });

  it('exports a file that applies back to no changes', async () => {
    const exported = join(dir, 'exported.yaml');
    const run = await portico(['export', '-o', exported], { ...env });
    expect(run.code).toBe(0);
    const text = readFileSync(exported, 'utf8');
    expect(text).toContain(`$schema=${app.config.publicUrl}/api/v1/config/schema`);
    expect(parseYaml(text)).toMatchObject({
      teams: [{ name: 'platform' }],
      gateways: [{ name: 'Clock', team: 'platform' }],
      servers: [{ name: 'Clocks', tools: ['clock-now'] }],
    });
    const again = await portico(['apply', '-f', exported, '--prune'], env);
    expect(again.stdout).toMatch(/^No changes/);
  });

  it('fails with the server’s problem for a document that does not apply', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: portico/v1\nservers:\n  - name: X\n    tools: [nope-x]\n');
    const run = await portico(['apply', '-f', bad], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^portico: PUT \/api\/v1\/config: 422 .*nope-x/);
  });
});

describe('portico apply that outlasts its --timeout', () => {
  let app: TestApp;
  /** An upstream that never answers: the apply waits for its gateway's sync to time out. */
  const silent = createServer(() => undefined);

  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    app = await startTestApp({ env: { UPSTREAM_TIMEOUT_MS: '4000' } });
  });

  afterAll(async () => {
    await app.close();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('says the change may have taken effect, as it did, not that Portico is unreachable', async () => {
    const env = {
      PORTICO_URL: app.baseUrl,
      PORTICO_USERNAME: 'admin',
      PORTICO_PASSWORD: ADMIN_PASSWORD,
    };
    const file = join(tempDataDir(), 'silent.yaml');
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    writeFileSync(file, `apiVersion: portico/v1\ngateways:\n  - name: Silent\n    url: ${url}\n`);
    const run = await portico(['apply', '-f', file, '--timeout', '1'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^portico: No answer from Portico at http:\/\/127\.0\.0\.1:\d+ to PUT \/api\/v1\/config within 1 s; the PUT may have taken effect all the same/,
    );
    // The document was applied: its gateway is there, and applying it again changes nothing.
    await waitFor(async () => {
      const { body } = await app.api().get('/api/v1/gateways').expect(200);
      return (body as { items: { status: string }[] }).items[0]?.status === 'unreachable';
    }, 'the sync of the silent gateway to time out');
    const again = await portico(['apply', '-f', file, '--dry-run'], env);
    expect(again.stdout).toMatch(/^No changes/);
  });
});
