import request from 'supertest';
import { factories } from '../support/factories';
import { tableOf, textOf } from '../support/html-text';
import { createTeam, createUser, pageSession } from '../support/identities';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';

describe('policies on the admin pages', () => {
  let t: TestApp;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    t = await startTestApp();
    const make = factories(t.app);
    const gateway = await make.gateway({ name: 'Files' });
    await make.tools(gateway, ['read_file', 'delete_file']);
    const red = await createTeam(t, 'red');
    await createUser(t, 'rita', 'member', [red]);
    ({ cookie, csrf } = await pageSession(t, 'admin', ADMIN_PASSWORD));
  });

  afterAll(async () => {
    await t.close();
  });

  const page = (path: string) => request(t.baseUrl).get(path).set('Cookie', cookie);
  const post = (path: string, form: Record<string, string>) =>
    request(t.baseUrl)
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf, ...form });
  const FORM = {
    name: 'no-deletes-for-red',
    description: 'Red only reads.',
    expression: '"red" in principal.teams && tool.originalName.startsWith("delete")',
    effect: 'deny',
    priority: '10',
    serverId: '',
    enabled: 'on',
    approvalMessage: '',
    rememberSeconds: '0',
  };

  it('creates a policy, showing a compile error beside the expression first', async () => {
    expect(textOf((await page('/admin/policies').expect(200)).text)).toContain('No policies yet');
    const refused = await post('/admin/policies', {
      ...FORM,
      expression: '"red" in principal.teams &&\n  tool.originalName.startsWith(',
    }).expect(400);
    expect(refused.text).toMatch(/<textarea id="expression"[^>]*aria-invalid="true"/);
    expect(textOf(refused.text)).toContain('the expression does not compile (line 2');
    expect(textOf(refused.text)).toContain('Red only reads.');

    await post('/admin/policies', FORM).expect(303).expect('Location', '/admin/policies');
    const listed = tableOf((await page('/admin/policies').expect(200)).text, 'policies');
    expect(listed.columns).toEqual([
      'S. No.',
      'Name',
      'Priority',
      'Effect',
      'Server',
      'Expression',
      'Enabled',
      'Actions',
    ]);
    expect(listed.rows).toEqual([
      [
        '1',
        'no-deletes-for-red Red only reads.',
        '10',
        'deny',
        'everywhere',
        FORM.expression,
        'yes',
        'Edit no-deletes-for-red Delete no-deletes-for-red',
      ],
    ]);
  });

  it('dry-runs what a user would see, and edits a policy into one that asks', async () => {
    const run = await post('/admin/policies/dry-run', {
      user: 'rita',
      serverId: '',
      arguments: '',
    }).expect(200);
    expect(textOf(run.text)).toContain('1 of 2 visible, 1 hidden, 0 needing approval');
    expect(tableOf(run.text, 'dry-run').rows).toEqual([
      ['1', 'files-delete_file', 'files', 'deny', 'no-deletes-for-red'],
      ['2', 'files-read_file', 'files', 'allow', 'none'],
    ]);
    const badJson = await post('/admin/policies/dry-run', {
      user: 'rita',
      serverId: '',
      arguments: '{nope',
    }).expect(422);
    expect(textOf(badJson.text)).toContain('The arguments are not JSON.');

    const policies = (await t.api().get('/api/v1/policies').expect(200)).body.items as {
      id: string;
    }[];
    const id = policies[0]!.id;
    expect(textOf((await page(`/admin/policies/${id}/edit`).expect(200)).text)).toContain(
      'Edit policy no-deletes-for-red',
    );
    await post(`/admin/policies/${id}`, {
      ...FORM,
      effect: 'approve',
      approvalMessage: 'Deleting files of Red',
      rememberSeconds: '3600',
    }).expect(303);
    expect((await t.api().get(`/api/v1/policies/${id}`).expect(200)).body).toMatchObject({
      effect: 'approve',
      approval: { message: 'Deleting files of Red', rememberSeconds: 3600 },
    });
    const asks = await post('/admin/policies/dry-run', {
      user: 'rita',
      serverId: '',
      arguments: '{"path": "/tmp/x"}',
    }).expect(200);
    expect(tableOf(asks.text, 'dry-run').rows[0]).toEqual([
      '1',
      'files-delete_file',
      'files',
      'approve',
      'no-deletes-for-red',
    ]);

    await post(`/admin/policies/${id}/delete`, {}).expect(303);
    await t.api().get(`/api/v1/policies/${id}`).expect(404);
  });
});
