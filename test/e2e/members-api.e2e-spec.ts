import request from 'supertest';
import { EventBus, type PorticoEvent } from '../../src/events/event-bus';
import { startMemberUpstream, type UpstreamMembers } from '../fixtures/member-upstream';
import { echoTool, type UpstreamFixture } from '../fixtures/upstream-server';
import { startTestApp, type TestApp } from '../support/test-app';

const UNKNOWN_ID = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';

/** What both upstreams list: the same names and URIs, so original naming must refuse pairs. */
function members(upstream: string): UpstreamMembers {
  return {
    tools: [
      echoTool('get_time', upstream),
      echoTool('app_only', upstream, { _meta: { ui: { visibility: ['app'] } } }),
    ],
    resources: [
      {
        uri: 'file:///readme.md',
        name: 'readme',
        title: `Readme of ${upstream}`,
        description: `The ${upstream} readme`,
        mimeType: 'text/markdown',
        size: 1200,
        annotations: { audience: ['user'] },
      },
      { uri: `file:///${upstream}.txt`, name: `${upstream}-only` },
    ],
    resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'files', mimeType: 'text/plain' }],
    prompts: [
      {
        name: 'greet',
        description: `Greets, by ${upstream}`,
        arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
      },
      { name: `${upstream}_review` },
    ],
  };
}

interface Listed {
  id: string;
  gatewaySlug: string;
  originalName?: string;
  originalUri?: string;
  originalUriTemplate?: string;
}

describe('resources, resource templates and prompts over REST, and servers made of them', () => {
  let t: TestApp;
  const upstreams: UpstreamFixture[] = [];
  const gateways: Record<'alpha' | 'beta', string> = { alpha: '', beta: '' };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    for (const name of ['alpha', 'beta'] as const) {
      const upstream = await startMemberUpstream(name, members(name));
      upstreams.push(upstream);
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name, url: upstream.url })
        .expect(201);
      gateways[name] = created.body.id;
    }
    // Ids by `<slug>:<kind>:<upstream name or URI>`, for the membership tests.
    for (const [kind, path, key] of [
      ['tool', 'tools', 'originalName'],
      ['resource', 'resources', 'originalUri'],
      ['template', 'resource-templates', 'originalUriTemplate'],
      ['prompt', 'prompts', 'originalName'],
    ] as const) {
      const list = await t.api().get(`/api/v1/${path}`).query({ limit: 500 }).expect(200);
      for (const item of list.body.items as Listed[])
        ids[`${item.gatewaySlug}:${kind}:${item[key]}`] = item.id;
    }
  });

  afterAll(async () => {
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  });

  it('lists resources under `<slug>+<uri>`, filtered, paged and with every upstream field', async () => {
    const alpha = await t
      .api()
      .get('/api/v1/resources')
      .query({ gatewayId: gateways.alpha })
      .expect(200);
    expect(alpha.body.total).toBe(2);
    expect(alpha.body.items.map((item: { uri: string }) => item.uri)).toEqual([
      'alpha+file:///alpha.txt',
      'alpha+file:///readme.md',
    ]);
    expect(alpha.body.items[1]).toEqual({
      id: ids['alpha:resource:file:///readme.md'],
      uri: 'alpha+file:///readme.md',
      originalUri: 'file:///readme.md',
      name: 'readme',
      title: 'Readme of alpha',
      description: 'The alpha readme',
      mimeType: 'text/markdown',
      size: 1200,
      annotations: { audience: ['user'] },
      meta: null,
      gatewayId: gateways.alpha,
      gatewaySlug: 'alpha',
      enabled: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const searched = await t.api().get('/api/v1/resources').query({ q: 'beta+file' }).expect(200);
    expect(searched.body.items.map((item: { uri: string }) => item.uri)).toEqual([
      'beta+file:///beta.txt',
      'beta+file:///readme.md',
    ]);
    const literal = await t.api().get('/api/v1/resources').query({ q: '%' }).expect(200);
    expect(literal.body.total).toBe(0);
    const paged = await t.api().get('/api/v1/resources').query({ limit: 1, offset: 3 }).expect(200);
    expect(paged.body).toMatchObject({ total: 4, items: [{ uri: 'beta+file:///readme.md' }] });
    await t.api().get('/api/v1/resources').query({ gatewayId: 'nope' }).expect(422);
  });

  it('gets, disables and enables a resource, refusing bad ids and bodies', async () => {
    const id = ids['beta:resource:file:///readme.md']!;
    expect((await t.api().get(`/api/v1/resources/${id}`).expect(200)).body.uri).toBe(
      'beta+file:///readme.md',
    );
    const missing = await t.api().get(`/api/v1/resources/${UNKNOWN_ID}`).expect(404);
    expect(missing.body.code).toBe('resource.not_found');
    await t.api().get('/api/v1/resources/not-a-uuid').expect(400);

    const disabled = await t
      .api()
      .patch(`/api/v1/resources/${id}`)
      .send({ enabled: false })
      .expect(200);
    expect(disabled.body.enabled).toBe(false);
    expect((await t.api().get(`/api/v1/resources/${id}`).expect(200)).body.enabled).toBe(false);
    for (const body of [{}, { enabled: 'no' }, { enabled: true, uri: 'x' }])
      await t.api().patch(`/api/v1/resources/${id}`).send(body).expect(422);
    await t.api().patch(`/api/v1/resources/${id}`).send({ enabled: true }).expect(200);
    await request(t.baseUrl).get('/api/v1/resources').expect(401);
    await request(t.baseUrl).patch(`/api/v1/resources/${id}`).send({ enabled: false }).expect(401);
  });

  it('lists, gets and switches resource templates under their prefixed template', async () => {
    const list = await t.api().get('/api/v1/resource-templates').expect(200);
    expect(list.body.items.map((item: { uriTemplate: string }) => item.uriTemplate)).toEqual([
      'alpha+file:///{path}',
      'beta+file:///{path}',
    ]);
    const id = ids['alpha:template:file:///{path}']!;
    expect((await t.api().get(`/api/v1/resource-templates/${id}`).expect(200)).body).toMatchObject({
      id,
      uriTemplate: 'alpha+file:///{path}',
      originalUriTemplate: 'file:///{path}',
      name: 'files',
      mimeType: 'text/plain',
      gatewaySlug: 'alpha',
      enabled: true,
    });
    const patched = await t
      .api()
      .patch(`/api/v1/resource-templates/${id}`)
      .send({ enabled: false })
      .expect(200);
    expect(patched.body.enabled).toBe(false);
    await t.api().patch(`/api/v1/resource-templates/${id}`).send({ enabled: true }).expect(200);
    const missing = await t.api().get(`/api/v1/resource-templates/${UNKNOWN_ID}`).expect(404);
    expect(missing.body.code).toBe('resource_template.not_found');
  });

  it('lists prompts under virtual names, with their arguments', async () => {
    const list = await t.api().get('/api/v1/prompts').query({ q: 'greet' }).expect(200);
    expect(list.body.items.map((item: { name: string }) => item.name)).toEqual([
      'alpha-greet',
      'beta-greet',
    ]);
    const id = ids['beta:prompt:greet']!;
    expect((await t.api().get(`/api/v1/prompts/${id}`).expect(200)).body).toEqual({
      id,
      name: 'beta-greet',
      originalName: 'greet',
      title: null,
      description: 'Greets, by beta',
      arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
      meta: null,
      gatewayId: gateways.beta,
      gatewaySlug: 'beta',
      enabled: true,
      pin: {
        pinnedHash: null,
        contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        rejectedHash: null,
        quarantine: null,
        findings: [],
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const byGateway = await t
      .api()
      .get('/api/v1/prompts')
      .query({ gatewayId: gateways.alpha })
      .expect(200);
    expect(byGateway.body.items.map((item: { name: string }) => item.name)).toEqual([
      'alpha-alpha_review',
      'alpha-greet',
    ]);
    expect(
      (await t.api().patch(`/api/v1/prompts/${id}`).send({ enabled: false }).expect(200)).body
        .enabled,
    ).toBe(false);
    await t.api().patch(`/api/v1/prompts/${id}`).send({ enabled: true }).expect(200);
    expect((await t.api().get(`/api/v1/prompts/${UNKNOWN_ID}`).expect(404)).body.code).toBe(
      'prompt.not_found',
    );
  });

  it('composes a server of every kind of member, and replaces only the kinds an edit names', async () => {
    const body = {
      name: 'Everything prefixed',
      toolIds: [ids['alpha:tool:get_time'], ids['beta:tool:get_time']],
      resourceIds: [
        ids['alpha:resource:file:///readme.md'],
        ids['beta:resource:file:///readme.md'],
      ],
      resourceTemplateIds: [ids['alpha:template:file:///{path}']],
      promptIds: [ids['alpha:prompt:greet'], ids['beta:prompt:greet']],
    };
    const created = await t.api().post('/api/v1/servers').send(body).expect(201);
    const sorted = (list: (string | undefined)[]) => [...list].sort();
    expect(created.body).toMatchObject({
      naming: 'prefixed',
      toolIds: sorted(body.toolIds),
      resourceIds: sorted(body.resourceIds),
      resourceTemplateIds: body.resourceTemplateIds,
      promptIds: sorted(body.promptIds),
    });

    const edited = await t
      .api()
      .patch(`/api/v1/servers/${created.body.id}`)
      .send({ promptIds: [ids['beta:prompt:beta_review']], resourceTemplateIds: [] })
      .expect(200);
    expect(edited.body).toMatchObject({
      toolIds: sorted(body.toolIds),
      resourceIds: sorted(body.resourceIds),
      resourceTemplateIds: [],
      promptIds: [ids['beta:prompt:beta_review']],
    });
    expect((await t.api().get(`/api/v1/servers/${created.body.id}`).expect(200)).body).toEqual(
      edited.body,
    );
  });

  it('refuses unknown member ids with 422 naming them, keeping the server as it was', async () => {
    for (const [field, detail, code] of [
      ['resourceIds', 'unknownResourceIds', 'server.unknown_resources'],
      ['resourceTemplateIds', 'unknownResourceTemplateIds', 'server.unknown_resource_templates'],
      ['promptIds', 'unknownPromptIds', 'server.unknown_prompts'],
    ] as const) {
      const refused = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: `Unknown ${field}`, [field]: [UNKNOWN_ID] })
        .expect(422);
      expect(refused.body).toMatchObject({ code, [detail]: [UNKNOWN_ID] });
      expect(refused.body.detail).toContain(UNKNOWN_ID);
    }
    // A prompt id is not a resource id.
    await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'Crossed', resourceIds: [ids['alpha:prompt:greet']] })
      .expect(422);
    const servers = await t.api().get('/api/v1/servers').expect(200);
    expect(
      servers.body.items.filter((server: { name: string }) => /Unknown|Crossed/.test(server.name)),
    ).toEqual([]);

    const kept = await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'Kept', promptIds: [ids['alpha:prompt:greet']] })
      .expect(201);
    await t
      .api()
      .patch(`/api/v1/servers/${kept.body.id}`)
      .send({ promptIds: [UNKNOWN_ID], description: 'changed' })
      .expect(422);
    expect((await t.api().get(`/api/v1/servers/${kept.body.id}`).expect(200)).body).toMatchObject({
      description: '',
      promptIds: [ids['alpha:prompt:greet']],
    });
    for (const invalid of [
      { resourceIds: ['not-a-uuid'] },
      { promptIds: [ids['alpha:prompt:greet'], ids['alpha:prompt:greet']] },
      { naming: 'upstream' },
    ]) {
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Invalid', ...invalid })
        .expect(422);
    }
  });

  it.each([
    ['tool', 'toolIds', 'get_time'],
    ['prompt', 'promptIds', 'greet'],
    ['resource', 'resourceIds', 'file:///readme.md'],
    ['resourceTemplate', 'resourceTemplateIds', 'file:///{path}'],
  ] as const)(
    'refuses two %ss with one upstream name under naming original, with 409',
    async (kind, field, name) => {
      const short = kind === 'resourceTemplate' ? 'template' : kind;
      const pair = [ids[`alpha:${short}:${name}`], ids[`beta:${short}:${name}`]];
      const serverName = `Original ${kind}`;
      const refused = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: serverName, naming: 'original', [field]: pair })
        .expect(409);
      expect(refused.body).toMatchObject({
        code: 'server.name_clash',
        clashes: [{ kind, name, gateways: ['alpha', 'beta'] }],
      });
      expect(refused.body.detail).toContain(`'${name}' (gateways alpha, beta)`);
      const listed = await t.api().get('/api/v1/servers').query({ limit: 500 }).expect(200);
      expect(listed.body.items.map((server: { name: string }) => server.name)).not.toContain(
        serverName,
      );
      // One of each is fine, and so is the pair under prefixed names.
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: serverName, naming: 'original', [field]: [pair[0]] })
        .expect(201);
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: `${serverName} prefixed`, [field]: pair })
        .expect(201);
    },
  );

  it('lets app-only tools share an upstream name, as they are listed under hashed names', async () => {
    const created = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'App-only pair',
        naming: 'original',
        toolIds: [ids['alpha:tool:app_only'], ids['beta:tool:app_only']],
      })
      .expect(201);
    expect(created.body.naming).toBe('original');
  });

  it('checks names when an edit switches naming or changes members, and tells sessions', async () => {
    const events: PorticoEvent[] = [];
    const unsubscribe = t.app.get(EventBus).subscribe((event) => events.push(event));
    try {
      const server = await t
        .api()
        .post('/api/v1/servers')
        .send({
          name: 'Switching',
          promptIds: [ids['alpha:prompt:greet'], ids['beta:prompt:greet']],
          toolIds: [ids['alpha:tool:get_time']],
          toolSearch: { enabled: true, alwaysLoaded: ['alpha-get_time'] },
        })
        .expect(201);
      const path = `/api/v1/servers/${server.body.id}`;
      const refused = await t.api().patch(path).send({ naming: 'original' }).expect(409);
      expect(refused.body.clashes).toEqual([
        { kind: 'prompt', name: 'greet', gateways: ['alpha', 'beta'] },
      ]);
      expect((await t.api().get(path).expect(200)).body.naming).toBe('prefixed');

      const switched = await t
        .api()
        .patch(path)
        .send({ naming: 'original', promptIds: [ids['beta:prompt:greet']] })
        .expect(200);
      expect(switched.body).toMatchObject({
        naming: 'original',
        promptIds: [ids['beta:prompt:greet']],
        // Always-loaded tools stay named by their virtual names in every naming.
        toolSearch: { enabled: true, alwaysLoaded: ['alpha-get_time'] },
      });
      await t
        .api()
        .patch(path)
        .send({ toolSearch: { enabled: true, alwaysLoaded: ['get_time'] } })
        .expect(422);

      const added = await t
        .api()
        .patch(path)
        .send({ toolIds: [ids['alpha:tool:get_time'], ids['beta:tool:get_time']] })
        .expect(409);
      expect(added.body.clashes).toEqual([
        { kind: 'tool', name: 'get_time', gateways: ['alpha', 'beta'] },
      ]);
      expect((await t.api().get(path).expect(200)).body.toolIds).toEqual([
        ids['alpha:tool:get_time'],
      ]);
      await t.api().patch(path).send({ description: 'Still fine' }).expect(200);

      const changes = events.filter(
        (event) => event.type === 'servers.changed' && event.serverIds.includes(server.body.id),
      );
      // Created, switched, described; refused edits change nothing and say nothing.
      expect(changes).toHaveLength(3);
    } finally {
      unsubscribe();
    }
  });
});
