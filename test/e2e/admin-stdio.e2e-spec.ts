import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STDIO_SERVERS } from '../fixtures/stdio-servers';
import { loginAgent } from '../support/admin-browser-session';
import { textOf } from '../support/html-text';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

describe('admin pages for stdio gateways', () => {
  let t: TestApp;

  afterEach(async () => {
    await t.close();
  });

  it('say why stdio is off and how to turn it on', async () => {
    t = await startTestApp();
    const { agent } = await loginAgent(t.baseUrl);
    const form = textOf((await agent.get('/admin/gateways/new').expect(200)).text);
    expect(form).toContain('Stdio upstreams are off on this Portico');
    expect(form).toContain('STDIO_COMMANDS=npx,node,uvx');
  });

  it('register server-filesystem from the form, show its processes, and never show its environment', async () => {
    t = await startTestApp({ env: { STDIO_COMMANDS: 'node' } });
    const dir = mkdtempSync(join(tmpdir(), 'portico-admin-fs-'));
    writeFileSync(join(dir, 'notes.txt'), 'admin notes');
    const { agent, csrf } = await loginAgent(t.baseUrl);
    const form = (await agent.get('/admin/gateways/new').expect(200)).text;
    expect(form).toContain('<option value="stdio"');
    expect(textOf(form)).toContain('Allowed commands (STDIO_COMMANDS): node');
    expect(form).toContain('data-transport="stdio"');

    const refused = await agent
      .post('/admin/gateways')
      .type('form')
      .send({ _csrf: csrf, name: 'Shell', transport: 'stdio', command: 'sh', args: '-c\nid' })
      .expect(422);
    expect(textOf(refused.text)).toContain("The command 'sh' is not on STDIO_COMMANDS (node)");

    const secret = 'fs-env-secret-99';
    const created = await agent
      .post('/admin/gateways')
      .type('form')
      .send({
        _csrf: csrf,
        name: 'Files',
        url: '',
        transport: 'stdio',
        command: 'node',
        args: `${STDIO_SERVERS.filesystem}\n${dir}\n`,
        env: `FS_TOKEN=${secret}`,
        authType: 'none',
      })
      .expect(303);
    const detailPath = created.headers.location as string;
    expect(detailPath).toMatch(/^\/admin\/gateways\/[0-9a-f-]{36}$/);
    const registered = await agent.get(detailPath).expect(200);
    // Registration waits a few seconds for the first sync, which a loaded machine may outlast.
    expect(textOf(registered.text)).toMatch(
      /Gateway 'Files' registered( with \d+ tools|; its first sync is still running)/,
    );
    const gatewayId = detailPath.split('/').pop();
    await waitFor(
      async () => (await t.api().get('/api/v1/tools').query({ gatewayId })).body.items.length > 0,
      'the first sync',
    );
    const detail = await agent.get(detailPath).expect(200);
    const page = textOf(detail.text);
    expect(page).toContain(`Commandnode ${STDIO_SERVERS.filesystem} ${dir} (run without a shell)`);
    expect(page).toContain('EnvironmentFS_TOKEN (values stored encrypted, never shown)');
    expect(page).toContain('Processes on this replica');
    expect(page).toContain('started: node');
    const edit = await agent.get(`${detailPath}/edit`).expect(200);
    expect(edit.text).toContain(`>${STDIO_SERVERS.filesystem}\n${dir}</textarea>`);
    expect(textOf(edit.text)).toContain('leave empty to keep the stored FS_TOKEN');
    for (const html of [registered.text, detail.text, edit.text])
      expect(html).not.toContain(secret);

    const client = await connectClient(t.baseUrl, { token: t.token });
    const read = await client.callTool({
      name: 'files-read_text_file',
      arguments: { path: join(dir, 'notes.txt') },
    });
    expect(read.content).toEqual([{ type: 'text', text: 'admin notes' }]);
    await client.close();
  });
});
