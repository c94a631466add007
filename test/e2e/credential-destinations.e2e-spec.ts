import request from 'supertest';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { csrfOf } from '../support/admin-browser-session';
import { textOf } from '../support/html-text';
import { createTeam, createUser, type TestUser, USER_PASSWORD } from '../support/identities';
import { startTestApp, type TestApp } from '../support/test-app';

// Where a gateway's credentials go is chosen by an admin or by whoever enters them. An operator
// must not receive callers' own tokens through a token service of her choosing, nor re-point a
// secret she never saw at a server of her own.
describe('where a gateway’s credentials may go', () => {
  let t: TestApp;
  let genuine: UpstreamFixture;
  let elsewhere: UpstreamFixture;
  /** The Authorization headers the operator's own server was sent. */
  const heard: string[] = [];
  let red: string;
  let operator: TestUser;

  const exchange = {
    type: 'token-exchange',
    tokenUrl: 'http://127.0.0.1:9/token',
    clientId: 'portico',
    clientSecret: 'sts-secret',
    audience: 'reports',
  };
  const asOperator = (method: 'post' | 'patch', path: string) =>
    request(t.baseUrl)[method](path).set('Authorization', `Bearer ${operator.token}`);

  beforeAll(async () => {
    t = await startTestApp({ env: { SYNC_INTERVAL_SECONDS: '0' } });
    genuine = await startUpstream({
      name: 'genuine',
      tools: [echoTool('report', 'genuine')],
      requiredHeaders: { authorization: 'Bearer admin-entered-secret' },
    });
    elsewhere = await startUpstream({
      name: 'elsewhere',
      tools: [echoTool('report', 'elsewhere')],
      authorize: (incoming) => {
        heard.push(incoming.headers.authorization ?? '');
        return true;
      },
    });
    red = await createTeam(t, 'Red');
    operator = await createUser(t, 'red-operator', 'operator', [red]);
  });

  afterAll(async () => {
    await t?.close();
    await genuine?.close();
    await elsewhere?.close();
  });

  it('lets only admins set token exchange, on a new gateway or an existing one', async () => {
    const created = await asOperator('post', '/api/v1/gateways')
      .send({ name: 'Reports', url: elsewhere.url, teamId: red, auth: exchange })
      .expect(403);
    expect(created.body.detail).toMatch(/Only admins may set token exchange/);
    const own = await asOperator('post', '/api/v1/gateways')
      .send({ name: 'Own', url: elsewhere.url, teamId: red })
      .expect(201);
    await asOperator('patch', `/api/v1/gateways/${own.body.id}`)
      .send({ auth: exchange })
      .expect(403);
    const stored = await t.api().get(`/api/v1/gateways/${own.body.id}`).expect(200);
    expect(stored.body.authType).toBe('none');
    await t.api().delete(`/api/v1/gateways/${own.body.id}`).expect(204);
  });

  it("refuses to move an admin's secret to another url unless it is entered again", async () => {
    const gateway = await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Team reports',
        url: genuine.url,
        teamId: red,
        auth: { type: 'bearer', token: 'admin-entered-secret' },
      })
      .expect(201);
    expect(gateway.body.status).toBe('healthy');
    const path = `/api/v1/gateways/${gateway.body.id}`;

    // The url it has is no move; another one is, alone or with other changes.
    await asOperator('patch', path).send({ url: genuine.url }).expect(200);
    for (const body of [{ url: elsewhere.url }, { url: elsewhere.url, name: 'Renamed' }]) {
      const refused = await asOperator('patch', path).send(body).expect(422);
      expect(JSON.stringify(refused.body)).toContain('enter them again (auth)');
    }
    const unchanged = await t.api().get(path).expect(200);
    expect(unchanged.body).toMatchObject({
      url: genuine.url,
      authType: 'bearer',
      name: 'Team reports',
    });
    expect(heard.join(' ')).not.toContain('admin-entered-secret');

    // Other edits keep the credentials; a move with credentials of her own is hers to make.
    await asOperator('patch', path).send({ pinning: 'first-sight' }).expect(200);
    await asOperator('patch', path)
      .send({ url: elsewhere.url, auth: { type: 'bearer', token: 'operator-secret' } })
      .expect(200);
    expect(heard).toContain('Bearer operator-secret');
    expect(heard.join(' ')).not.toContain('admin-entered-secret');

    // The admin form says the same to her, on the credentials' field, and keeps them.
    await t
      .api()
      .patch(path)
      .send({ url: genuine.url, auth: { type: 'bearer', token: 'admin-entered-secret' } })
      .expect(200);
    const agent = request.agent(t.baseUrl);
    const login = await agent.get('/admin/login').expect(200);
    await agent
      .post('/admin/login')
      .type('form')
      .send({ _csrf: csrfOf(login.text), username: operator.username, password: USER_PASSWORD })
      .expect(303);
    const edit = await agent.get(`/admin/gateways/${gateway.body.id}/edit`).expect(200);
    expect(textOf(edit.text)).toContain('Only admins may set token exchange');
    const page = await agent
      .post(`/admin/gateways/${gateway.body.id}`)
      .type('form')
      .send({
        _csrf: csrfOf(edit.text),
        name: 'Team reports',
        url: elsewhere.url,
        transport: 'streamable-http',
        authType: 'keep',
        pinning: 'first-sight',
        eraPin: 'auto',
      })
      .expect(422);
    expect(textOf(page.text)).toContain('enter them again');
    expect((await t.api().get(path).expect(200)).body.url).toBe(genuine.url);
    expect(heard.join(' ')).not.toContain('admin-entered-secret');

    // An admin may move it as it is.
    await t.api().patch(path).send({ url: elsewhere.url }).expect(200);
    await t.api().delete(path).expect(204);
  });

  it("refuses another transport or description for an admin's secret unless it is entered again", async () => {
    const operation = (path: string, method = 'get') => ({
      openapi: '3.0.3',
      info: { title: 'Reports', version: '1' },
      paths: {
        [path]: {
          [method]: { operationId: 'report', responses: { '200': { description: 'ok' } } },
        },
      },
    });
    const mcp = await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Secret reports',
        url: genuine.url,
        teamId: red,
        auth: { type: 'bearer', token: 'admin-rest-secret' },
      })
      .expect(201);
    // Same url, another kind: the description would say what requests carry the secret there.
    const converted = await asOperator('patch', `/api/v1/gateways/${mcp.body.id}`)
      .send({
        transport: 'openapi',
        openapiDocument: JSON.stringify(operation('/admin/users', 'delete')),
        openapiSelection: { methods: ['DELETE'] },
      })
      .expect(422);
    expect(JSON.stringify(converted.body)).toContain('enter them again (auth)');
    expect((await t.api().get(`/api/v1/gateways/${mcp.body.id}`)).body).toMatchObject({
      transport: 'streamable-http',
      authType: 'bearer',
    });

    const rest = await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Rest reports',
        transport: 'openapi',
        url: `${genuine.url}/rest`,
        teamId: red,
        openapiDocument: JSON.stringify(operation('/report')),
        auth: { type: 'bearer', token: 'admin-rest-secret' },
      })
      .expect(201);
    const path = `/api/v1/gateways/${rest.body.id}`;
    for (const body of [
      { openapiDocument: JSON.stringify(operation('/admin/users', 'delete')) },
      { openapiUrl: `${elsewhere.url}/openapi.json` },
      { transport: 'streamable-http' },
    ])
      expect(
        JSON.stringify((await asOperator('patch', path).send(body).expect(422)).body),
      ).toContain('enter them again (auth)');
    // Another selection of the same description stays where the admin meant.
    await asOperator('patch', path)
      .send({ openapiSelection: { methods: ['GET', 'HEAD'] } })
      .expect(200);
    expect(heard.join(' ')).not.toContain('admin-rest-secret');
    for (const id of [mcp.body.id, rest.body.id])
      await t.api().delete(`/api/v1/gateways/${id}`).expect(204);
  });

  it("keeps an admin's token-exchange gateway where the admin put it", async () => {
    const gateway = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Exchanged', url: genuine.url, teamId: red, auth: exchange })
      .expect(201);
    const path = `/api/v1/gateways/${gateway.body.id}`;
    await asOperator('patch', path).send({ name: 'Exchanged reports' }).expect(200);
    await asOperator('patch', path).send({ url: elsewhere.url }).expect(422);
    await asOperator('patch', path)
      .send({ url: elsewhere.url, auth: { ...exchange, tokenUrl: 'http://127.0.0.1:9/mine' } })
      .expect(403);
    const stored = await t.api().get(path).expect(200);
    expect(stored.body).toMatchObject({ url: genuine.url, authType: 'token-exchange' });
    await t.api().delete(path).expect(204);
  });
});
