import { DataSource } from 'typeorm';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { factories } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('registry over REST', () => {
  let t: TestApp;
  let make: ReturnType<typeof factories>;

  beforeAll(async () => {
    t = await startTestApp();
    make = factories(t.app);
  });

  afterAll(async () => {
    await t.close();
  });

  it('registers two gateways whose same-named tools get distinct virtual names, composable into a server', async () => {
    const first = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Gateway 1', url: 'http://127.0.0.1:9101/mcp' })
      .expect(201);
    const second = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Gateway 2', url: 'http://127.0.0.1:9102/mcp' })
      .expect(201);
    expect(first.body).toMatchObject({
      slug: 'gateway-1',
      authType: 'none',
      enabled: true,
      toolCount: 0,
    });

    const [one] = await make.tools(await make.gatewayById(first.body.id), ['get_system_time']);
    const [two] = await make.tools(await make.gatewayById(second.body.id), ['get_system_time']);

    const list = await t.api().get('/api/v1/tools').query({ q: 'get_system_time' }).expect(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((tool: { name: string }) => tool.name)).toEqual([
      'gateway-1-get_system_time',
      'gateway-2-get_system_time',
    ]);
    expect(list.body.items[0]).toMatchObject({
      originalName: 'get_system_time',
      gatewayId: first.body.id,
      gatewaySlug: 'gateway-1',
      visibility: ['model', 'app'],
      toolHash: one!.toolHash,
      enabled: true,
    });

    const byName = await t.api().get('/api/v1/tools/by-name/gateway-2-get_system_time').expect(200);
    expect(byName.body.id).toBe(two!.id);

    const server = await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'Time', toolIds: [one!.id] })
      .expect(201);
    expect(server.body).toMatchObject({
      name: 'Time',
      enabled: true,
      toolIds: [one!.id],
      toolSearch: { enabled: false, alwaysLoaded: [] },
      mcpUrl: `${t.config.publicUrl}/servers/${server.body.id}/mcp`,
    });
    const fetched = await t.api().get(`/api/v1/servers/${server.body.id}`).expect(200);
    expect(fetched.body.toolIds).toEqual([one!.id]);
  });

  it('filters tools by gateway and pages them', async () => {
    const gateway = await make.gateway({ name: 'Paged' });
    await make.tools(gateway, ['a1', 'a2', 'a3', 'a4', 'a5']);
    const page = await t
      .api()
      .get('/api/v1/tools')
      .query({ gatewayId: gateway.id, limit: 2, offset: 2 })
      .expect(200);
    expect(page.body.total).toBe(5);
    expect(page.body.items.map((tool: { name: string }) => tool.name)).toEqual([
      'paged-a3',
      'paged-a4',
    ]);
  });

  it('renames a gateway and moves its tools’ names with it', async () => {
    const gateway = await make.gateway({ name: 'Before' });
    await make.tools(gateway, ['x', 'y']);
    const renamed = await t
      .api()
      .patch(`/api/v1/gateways/${gateway.id}`)
      .send({ name: 'After Rename' })
      .expect(200);
    expect(renamed.body.slug).toBe('after-rename');
    await t.api().get('/api/v1/tools/by-name/after-rename-x').expect(200);
    await t.api().get('/api/v1/tools/by-name/before-x').expect(404);
    const tools = await t.api().get('/api/v1/tools').query({ gatewayId: gateway.id }).expect(200);
    expect(tools.body.items.map((tool: { gatewaySlug: string }) => tool.gatewaySlug)).toEqual([
      'after-rename',
      'after-rename',
    ]);
  });

  it('refuses a rename whose names would clash, changing nothing', async () => {
    const a = await make.gateway({ name: 'q' });
    await make.tools(a, ['r-s']);
    const other = await make.gateway({ name: 'other' });
    await make.tools(other, ['s', 't']);
    const refused = await t
      .api()
      .patch(`/api/v1/gateways/${other.id}`)
      .send({ name: 'q r' })
      .expect(409);
    expect(refused.body).toMatchObject({ code: 'gateway.tool_name_clash', clashes: ['q-r-s'] });
    expect((await t.api().get(`/api/v1/gateways/${other.id}`).expect(200)).body.slug).toBe('other');
    await t.api().get('/api/v1/tools/by-name/other-t').expect(200);
  });

  it('refuses a rename that would push a tool name past 128 characters, changing nothing', async () => {
    const gateway = await make.gateway({ name: 'g' });
    const long = 'l'.repeat(126);
    await make.tools(gateway, [long]);
    const refused = await t
      .api()
      .patch(`/api/v1/gateways/${gateway.id}`)
      .send({ name: 'a much longer name' })
      .expect(409);
    expect(refused.body).toMatchObject({ code: 'gateway.tool_name_too_long' });
    expect(refused.body.detail).toContain('145 characters');
    expect((await t.api().get(`/api/v1/gateways/${gateway.id}`).expect(200)).body.name).toBe('g');
    await t.api().get(`/api/v1/tools/by-name/g-${long}`).expect(200);
  });

  it('deactivates, activates and deletes a gateway with its tools and memberships', async () => {
    const gateway = await make.gateway({ name: 'Short lived' });
    const [tool] = await make.tools(gateway, ['temp']);
    const server = await make.server({ toolIds: [tool!.id] });
    expect(
      (await t.api().post(`/api/v1/gateways/${gateway.id}/deactivate`).expect(200)).body.enabled,
    ).toBe(false);
    expect(
      (await t.api().post(`/api/v1/gateways/${gateway.id}/activate`).expect(200)).body.enabled,
    ).toBe(true);
    await t.api().delete(`/api/v1/gateways/${gateway.id}`).expect(204);
    await t.api().get(`/api/v1/gateways/${gateway.id}`).expect(404);
    await t.api().get(`/api/v1/tools/${tool!.id}`).expect(404);
    expect((await t.api().get(`/api/v1/servers/${server.id}`).expect(200)).body.toolIds).toEqual(
      [],
    );
  });

  it('disables a tool and edits a server', async () => {
    const gateway = await make.gateway();
    const [a, b] = await make.tools(gateway, ['one', 'two']);
    expect(
      (await t.api().patch(`/api/v1/tools/${a!.id}`).send({ enabled: false }).expect(200)).body
        .enabled,
    ).toBe(false);
    const server = await make.server({ toolIds: [a!.id] });
    const name = `${gateway.slug}-two`;
    const edited = await t
      .api()
      .patch(`/api/v1/servers/${server.id}`)
      .send({
        description: 'edited',
        toolIds: [b!.id],
        toolSearch: { enabled: true, alwaysLoaded: [name] },
      })
      .expect(200);
    expect(edited.body).toMatchObject({
      description: 'edited',
      toolIds: [b!.id],
      toolSearch: { enabled: true, alwaysLoaded: [name] },
    });
    await t.api().delete(`/api/v1/servers/${server.id}`).expect(204);
    await t.api().get(`/api/v1/servers/${server.id}`).expect(404);
    await t.api().get(`/api/v1/tools/${b!.id}`).expect(200);
  });
});

describe('upstream credentials', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('are stored encrypted and never returned', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const created = await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Secretive',
        url: 'http://127.0.0.1:9301/mcp',
        auth: { type: 'headers', headers: { 'X-Api-Key': secret } },
      })
      .expect(201);
    expect(created.body.authType).toBe('headers');
    await t
      .api()
      .patch(`/api/v1/gateways/${created.body.id}`)
      .send({ auth: { type: 'bearer', token: secret } })
      .expect(200);

    const [row] = await t.app
      .get(DataSource)
      .query(`SELECT auth_type, auth_secret FROM gateway WHERE id = $1`, [created.body.id]);
    expect(row.auth_type).toBe('bearer');
    expect(row.auth_secret).toMatch(/^v1\./);
    expect(row.auth_secret).not.toContain(secret);
    expect(
      t.app.get(GatewaysService).credentials(await factories(t.app).gatewayById(created.body.id)),
    ).toEqual({ type: 'bearer', token: secret });

    const responses = await Promise.all([
      t.api().get(`/api/v1/gateways/${created.body.id}`),
      t.api().get('/api/v1/gateways'),
      t.api().post(`/api/v1/gateways/${created.body.id}/deactivate`),
      t.api().post(`/api/v1/gateways/${created.body.id}/activate`),
    ]);
    for (const response of responses) expect(JSON.stringify(response.body)).not.toContain(secret);
  });
});
