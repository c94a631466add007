import request from 'supertest';
import { loginAgent } from '../support/admin-browser-session';
import { startMemberUpstream } from '../fixtures/member-upstream';
import { type UpstreamFixture } from '../fixtures/upstream-server';
import { tableOf, textOf } from '../support/html-text';
import { startTestApp, type TestApp } from '../support/test-app';

type Agent = Awaited<ReturnType<typeof loginAgent>>['agent'];

const HOSTILE = '<img src=x onerror=alert(1)>';
const ESCAPED = '&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;';
const PROMPTS = 26;
const RESOURCES = 26;

interface Item {
  id: string;
  name: string;
  uri: string;
  uriTemplate: string;
  gatewaySlug: string;
}

describe('admin pages of prompts, resources and templates, and servers made of them', () => {
  let t: TestApp;
  let agent: Agent;
  let csrf: string;
  const upstreams: UpstreamFixture[] = [];
  const gatewayIds: string[] = [];
  let prompts: Item[];
  let resources: Item[];
  let templates: Item[];

  beforeAll(async () => {
    t = await startTestApp();
    const alpha = await startMemberUpstream('alpha', {
      prompts: [
        ...Array.from({ length: PROMPTS - 1 }, (_, i) => ({
          name: `p_${String(i).padStart(2, '0')}`,
        })),
        {
          name: 'hostile',
          description: HOSTILE,
          arguments: [{ name: 'topic', description: HOSTILE, required: true }, { name: 'tone' }],
        },
      ],
      resources: Array.from({ length: RESOURCES }, (_, i) => ({
        uri: `file:///doc_${String(i).padStart(2, '0')}.md`,
        name: `doc ${i}`,
      })),
      resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'files' }],
    });
    const beta = await startMemberUpstream('beta', {
      prompts: [{ name: 'p_00', description: 'The beta p_00' }],
      resources: [{ uri: 'file:///doc_00.md', name: HOSTILE, description: HOSTILE }],
      resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'files', description: HOSTILE }],
    });
    upstreams.push(alpha, beta);
    for (const [name, upstream] of [
      ['Alpha', alpha],
      ['Beta', beta],
    ] as const) {
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name, url: upstream.url })
        .expect(201);
      gatewayIds.push(created.body.id);
    }
    const all = async (path: string) =>
      (await t.api().get(path).query({ limit: 500 }).expect(200)).body.items as Item[];
    prompts = await all('/api/v1/prompts');
    resources = await all('/api/v1/resources');
    templates = await all('/api/v1/resource-templates');
    ({ agent, csrf } = await loginAgent(t.baseUrl));
  });

  afterAll(async () => {
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  });

  const find = (items: Item[], slug: string, test: (item: Item) => boolean) =>
    items.find((item) => item.gatewaySlug === slug && test(item))!;
  const hostilePrompt = () => find(prompts, 'alpha', (item) => item.name === 'alpha-hostile');
  const betaResource = () => find(resources, 'beta', () => true);
  const betaTemplate = () => find(templates, 'beta', () => true);

  function pagePaths(): string[] {
    return [
      '/admin/prompts',
      `/admin/prompts?gatewayId=${gatewayIds[0]}&q=p_&page=2`,
      `/admin/prompts/${hostilePrompt().id}`,
      '/admin/resources',
      '/admin/resources?q=doc&page=2&templatesPage=1',
      `/admin/resources/${betaResource().id}`,
      `/admin/resources/templates/${betaTemplate().id}`,
    ];
  }

  it('renders every page behind the login, with the strict CSP and no inline script', async () => {
    for (const path of pagePaths()) {
      const response = await agent.get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(response.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
      expect(response.text).not.toMatch(/<script>|<style>|\sstyle="|\son[a-z]+=/);
      expect(response.text).not.toContain('<img');
      const anonymous = await request(t.baseUrl).get(path).expect(303);
      expect(anonymous.headers.location).toMatch(/^\/admin\/login\?next=/);
    }
    const nav = (await agent.get('/admin/prompts').expect(200)).text;
    expect(nav).toContain('<a href="/admin/prompts" aria-current="page">Prompts</a>');
    expect(nav).toContain('<a href="/admin/resources" >Resources</a>');
    await agent.get('/admin/prompts/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b').expect(404);
    await agent.get('/admin/resources/templates/not-a-uuid').expect(400);
  });

  it('lists prompts with S. No. first, continuing across pages', async () => {
    const first = await agent.get('/admin/prompts').expect(200);
    const table = tableOf(first.text, 'prompts');
    expect(table.columns).toEqual([
      'S. No.',
      'Virtual name',
      'Original name',
      'Gateway',
      'Arguments',
      'Description',
      'Enabled',
    ]);
    expect(table.rows[0]).toEqual([
      '1',
      'alpha-hostile',
      'hostile',
      'alpha',
      'topic*, tone',
      HOSTILE,
      'Yes',
    ]);
    expect(table.rows.map((row) => row[0])).toEqual(
      Array.from({ length: 25 }, (_, i) => String(i + 1)),
    );
    const second = tableOf((await agent.get('/admin/prompts?page=2').expect(200)).text, 'prompts');
    expect(second.rows.map((row) => [row[0], row[1]])).toEqual([
      ['26', 'alpha-p_24'],
      ['27', 'beta-p_00'],
    ]);
    const filtered = tableOf(
      (await agent.get(`/admin/prompts?gatewayId=${gatewayIds[1]}`).expect(200)).text,
      'prompts',
    );
    expect(filtered.rows.map((row) => row[1])).toEqual(['beta-p_00']);
    const refused = await agent.get('/admin/prompts?gatewayId=nope').expect(422);
    expect(refused.text).toMatch(/id="filter-gateway-error">gatewayId must be a UUID</);
  });

  it('lists resources and templates on one page, each numbered and paged on its own', async () => {
    const page = (await agent.get('/admin/resources').expect(200)).text;
    const list = tableOf(page, 'resources');
    expect(list.columns).toEqual([
      'S. No.',
      'URI',
      'Name',
      'Gateway',
      'MIME type',
      'Description',
      'Enabled',
    ]);
    expect(list.rows[0]).toEqual([
      '1',
      'alpha+file:///doc_00.md',
      'doc 0',
      'alpha',
      '—',
      '',
      'Yes',
    ]);
    expect(list.rows).toHaveLength(25);
    const templateTable = tableOf(page, 'resource-templates');
    expect(templateTable.columns[0]).toBe('S. No.');
    expect(templateTable.rows.map((row) => row.slice(0, 3))).toEqual([
      ['1', 'alpha+file:///{path}', 'files'],
      ['2', 'beta+file:///{path}', 'files'],
    ]);
    expect(textOf(page)).toContain('Resources (27)');

    const second = (await agent.get('/admin/resources?page=2').expect(200)).text;
    expect(tableOf(second, 'resources').rows.map((row) => [row[0], row[1], row[2]])).toEqual([
      ['26', 'alpha+file:///doc_25.md', 'doc 25'],
      ['27', 'beta+file:///doc_00.md', HOSTILE],
    ]);
    expect(second).toContain(ESCAPED);
    // Paging resources keeps the templates on their first page, and the other way round.
    expect(tableOf(second, 'resource-templates').rows).toHaveLength(2);
    expect(second).toContain('href="/admin/resources" rel="prev"');
    const past = (await agent.get('/admin/resources?templatesPage=3').expect(200)).text;
    expect(tableOf(past, 'resources').rows).toHaveLength(25);
    expect(past).toContain('No resource templates on this page.');
  });

  it('shows a prompt’s arguments and hostile text as text, and switches it off and on', async () => {
    const prompt = hostilePrompt();
    const detail = await agent.get(`/admin/prompts/${prompt.id}`).expect(200);
    expect(tableOf(detail.text, 'prompt-arguments')).toEqual({
      columns: ['S. No.', 'Name', 'Required', 'Description'],
      rows: [
        ['1', 'topic', 'Yes', HOSTILE],
        ['2', 'tone', 'No', ''],
      ],
    });
    expect(detail.text).toContain(ESCAPED);
    await agent
      .post(`/admin/prompts/${prompt.id}`)
      .type('form')
      .send({ _csrf: csrf })
      .expect(303)
      .expect('Location', `/admin/prompts/${prompt.id}`);
    expect((await t.api().get(`/api/v1/prompts/${prompt.id}`)).body.enabled).toBe(false);
    const saved = (await agent.get(`/admin/prompts/${prompt.id}`).expect(200)).text;
    expect(saved).toContain('Prompt &#x27;alpha-hostile&#x27; saved.');
    await agent
      .post(`/admin/prompts/${prompt.id}`)
      .type('form')
      .send({ _csrf: csrf, enabled: 'on' })
      .expect(303);
    expect((await t.api().get(`/api/v1/prompts/${prompt.id}`)).body.enabled).toBe(true);
    await agent
      .post(`/admin/prompts/${prompt.id}`)
      .type('form')
      .send({ enabled: 'on' })
      .expect(403);
  });

  it('switches resources and templates off from their pages, escaping what the upstream wrote', async () => {
    for (const [path, api] of [
      [`/admin/resources/${betaResource().id}`, `/api/v1/resources/${betaResource().id}`],
      [
        `/admin/resources/templates/${betaTemplate().id}`,
        `/api/v1/resource-templates/${betaTemplate().id}`,
      ],
    ] as const) {
      const page = await agent.get(path).expect(200);
      expect(page.text).toContain(ESCAPED);
      expect(page.text).toContain('<code>file:///');
      await agent
        .post(path)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303)
        .expect('Location', path);
      expect((await t.api().get(api)).body.enabled).toBe(false);
      await agent.post(path).type('form').send({ _csrf: csrf, enabled: 'on' }).expect(303);
      expect((await t.api().get(api)).body.enabled).toBe(true);
    }
  });

  it('counts a gateway’s prompts, resources and templates, and shows each list in its sync report', async () => {
    const page = (await agent.get(`/admin/gateways/${gatewayIds[0]}`).expect(200)).text;
    expect(page).toMatch(/id="count-prompts">26</);
    expect(page).toMatch(/id="count-resources">26</);
    expect(page).toMatch(/id="count-resource-templates">1</);
    expect(page).toContain('Tools: 0 added, 0 updated, 0 removed, 0 unchanged');
    expect(textOf(page)).toContain('Prompts: 26 added, 0 updated, 0 removed, 0 unchanged');
    expect(textOf(page)).toContain('Resources: 26 added, 0 updated, 0 removed, 0 unchanged');
    expect(textOf(page)).toContain('Resource templates: 1 added');
    expect(page).toContain('<code>+ file:///doc_25.md</code>');
    expect(page).toContain('<code>+ hostile</code>');
  });

  it('creates a server with original naming from the form, showing a name clash beside the naming', async () => {
    const form = (await agent.get('/admin/servers/new').expect(200)).text;
    expect(form).toContain('<option value="prefixed" selected>');
    for (const field of ['toolIds', 'promptIds', 'resourceIds', 'resourceTemplateIds'])
      expect(form).toContain(`data-picker="${field}"`);
    expect(form).toContain(ESCAPED);
    expect(form).not.toContain('<img');

    const clashing: [string, string] = [
      find(resources, 'alpha', (item) => item.uri === 'alpha+file:///doc_00.md').id,
      betaResource().id,
    ];
    const promptId = find(prompts, 'beta', () => true).id;
    const refused = await agent
      .post('/admin/servers')
      .type('form')
      .send({
        _csrf: csrf,
        name: 'Original',
        enabled: 'on',
        naming: 'original',
        resourceIds: clashing,
        promptIds: promptId,
      })
      .expect(409);
    expect(refused.text).toMatch(
      /id="naming-error">With naming &#x27;original&#x27; these members would show under one name: resource &#x27;file:\/\/\/doc_00\.md&#x27; \(gateways alpha, beta\)/,
    );
    expect(refused.text).toContain('<option value="original" selected>');
    for (const id of [...clashing, promptId])
      expect(refused.text).toMatch(new RegExp(`value="${id}" id="[a-z]+-${id}" checked`));

    const created = await agent
      .post('/admin/servers')
      .type('form')
      .send({
        _csrf: csrf,
        name: 'Original',
        enabled: 'on',
        naming: 'original',
        resourceIds: clashing[1],
        resourceTemplateIds: betaTemplate().id,
        promptIds: promptId,
      })
      .expect(303);
    const detailPath = created.headers.location as string;
    const id = detailPath.split('/').pop()!;
    expect((await t.api().get(`/api/v1/servers/${id}`).expect(200)).body).toMatchObject({
      naming: 'original',
      resourceIds: [clashing[1]],
      resourceTemplateIds: [betaTemplate().id],
      promptIds: [promptId],
      toolIds: [],
    });
    const detail = (await agent.get(detailPath).expect(200)).text;
    expect(detail).toContain('Original: clients see the upstreams’ own names and URIs');
    expect(tableOf(detail, 'prompts').rows.map((row) => row.slice(0, 2))).toEqual([
      ['1', 'beta-p_00'],
    ]);
    expect(tableOf(detail, 'resources').rows.map((row) => row.slice(0, 2))).toEqual([
      ['1', 'beta+file:///doc_00.md'],
    ]);
    expect(tableOf(detail, 'resource-templates').rows).toHaveLength(1);

    const edit = (await agent.get(`${detailPath}/edit`).expect(200)).text;
    expect(edit).toContain('<option value="original" selected>');
    expect(edit).toContain(`value="${promptId}" id="prompt-${promptId}" checked`);
    // The edit keeps the naming; switching to prefixed lets the clashing pair in.
    await agent
      .post(detailPath)
      .type('form')
      .send({ _csrf: csrf, name: 'Original', naming: 'prefixed', resourceIds: clashing })
      .expect(303);
    expect((await t.api().get(`/api/v1/servers/${id}`).expect(200)).body).toMatchObject({
      naming: 'prefixed',
      resourceIds: [...clashing].sort(),
      promptIds: [],
    });
  });
});
