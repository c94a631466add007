import { createHash, scryptSync } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { TokenUsage } from '../../src/auth/token-usage';
import { ApiToken } from '../../src/tokens/api-token.entity';
import { loginAgent } from '../support/admin-browser-session';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTeam, createUser, USER_PASSWORD } from '../support/identities';
import { eventually, initializeRequest, postMcp } from '../support/mcp-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { legacyToken } from '../support/tokens';

const bearer = (t: TestApp, token: string) => {
  const agent = request.agent(t.baseUrl);
  agent.set('Authorization', `Bearer ${token}`);
  return agent;
};

describe('managed API tokens', () => {
  let t: TestApp;
  let serverA: string;
  let serverB: string;

  beforeAll(async () => {
    t = await startTestApp();
    serverA = (await t.api().post('/api/v1/servers').send({ name: 'A' }).expect(201)).body.id;
    serverB = (await t.api().post('/api/v1/servers').send({ name: 'B' }).expect(201)).body.id;
  });

  afterAll(async () => {
    await t.close();
  });

  it('shows the value once, and stores only its hash', async () => {
    const created = await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'CI', role: 'operator', expiresInDays: 7 })
      .expect(201);
    const { token, id, prefix } = created.body;
    expect(token).toMatch(/^pt_[A-Za-z0-9_-]{43}$/);
    expect(token.startsWith(prefix)).toBe(true);
    expect(new Date(created.body.expiresAt).getTime() - Date.now()).toBeGreaterThan(6.9 * 86400e3);
    const listed = await t.api().get('/api/v1/tokens').expect(200);
    expect(listed.body.items).toContainEqual(
      expect.objectContaining({ id, name: 'CI', role: 'operator', ownerName: 'admin' }),
    );
    expect(listed.text).not.toContain(token);
    const rows = await t.app.get(DataSource).query(`SELECT * FROM api_token WHERE id = $1`, [id]);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    await bearer(t, token).get('/api/v1/gateways').expect(200);
    await bearer(t, token).get('/api/v1/users').expect(403);
  });

  it("acts under its owner's username, whatever its name, for policies and the audit trail", async () => {
    const mallory = await createUser(t, 'mallory', 'member');
    const { token } = (
      await bearer(t, mallory.token)
        .post('/api/v1/tokens')
        .send({ name: 'admin', role: 'member' })
        .expect(201)
    ).body;
    const me = await bearer(t, token).get('/api/v1/auth/me').expect(200);
    expect(me.body).toMatchObject({ name: 'mallory', userId: mallory.id });
  });

  it('refuses a token without a role or servers, with both, or beyond its creator', async () => {
    await t.api().post('/api/v1/tokens').send({ name: 'none' }).expect(422);
    await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'both', role: 'member', serverIds: [serverA] })
      .expect(422);
    await t
      .api()
      .post('/api/v1/tokens')
      .send({ name: 'ghost', serverIds: ['1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b'] })
      .expect(422);
    const team = await createTeam(t, 'Capped');
    const operator = await createUser(t, 'capped-operator', 'operator', [team]);
    await bearer(t, operator.token)
      .post('/api/v1/tokens')
      .send({ name: 'up', role: 'admin' })
      .expect(422);
    const member = (
      await bearer(t, operator.token)
        .post('/api/v1/tokens')
        .send({ name: 'down', role: 'member' })
        .expect(201)
    ).body.token;
    await bearer(t, member).get('/api/v1/servers').expect(200);
    await bearer(t, member).get('/api/v1/gateways').expect(403);
    // A token made with a member token cannot climb back to operator.
    await bearer(t, member)
      .post('/api/v1/tokens')
      .send({ name: 'x', role: 'operator' })
      .expect(422);
  });

  it('limits a server token to its servers’ MCP endpoints', async () => {
    const token = (
      await t
        .api()
        .post('/api/v1/tokens')
        .send({ name: 'agent', serverIds: [serverA] })
        .expect(201)
    ).body.token;
    expect(
      (await postMcp(`${t.baseUrl}/servers/${serverA}/mcp`, token, initializeRequest())).status,
    ).toBe(200);
    expect(
      (await postMcp(`${t.baseUrl}/servers/${serverB}/mcp`, token, initializeRequest())).status,
    ).toBe(403);
    expect((await postMcp(`${t.baseUrl}/mcp`, token, initializeRequest())).status).toBe(403);
    await bearer(t, token).get('/api/v1/servers').expect(403);
    await bearer(t, token).get('/api/v1/tokens').expect(403);
  });

  it('looks a token up in the database once, not on every MCP request', async () => {
    const token = (
      await t
        .api()
        .post('/api/v1/tokens')
        .send({ name: 'hot', serverIds: [serverA] })
        .expect(201)
    ).body.token;
    const lookups = jest.spyOn(t.app.get(DataSource).getRepository(ApiToken), 'findOneBy');
    try {
      for (let i = 0; i < 5; i++) {
        const response = await postMcp(
          `${t.baseUrl}/servers/${serverA}/mcp`,
          token,
          initializeRequest(),
        );
        expect(response.status).toBe(200);
        await response.text();
      }
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it('records use in batches, not on each request', async () => {
    const { id, token } = (
      await t.api().post('/api/v1/tokens').send({ name: 'used', role: 'member' }).expect(201)
    ).body;
    for (let i = 0; i < 3; i++) await bearer(t, token).get('/api/v1/servers').expect(200);
    const lastUsed = async () =>
      (await t.api().get('/api/v1/tokens').expect(200)).body.items.find(
        (item: { id: string }) => item.id === id,
      ).lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await t.app.get(TokenUsage).flush();
    expect(new Date(await lastUsed()).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses an expired token', async () => {
    const { id, token } = (
      await t.api().post('/api/v1/tokens').send({ name: 'old', role: 'member' }).expect(201)
    ).body;
    await t.app
      .get(DataSource)
      .query(`UPDATE api_token SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    const refused = await bearer(t, token).get('/api/v1/servers').expect(401);
    expect(refused.body.detail).toMatch(/expired/);
  });

  it('stops a revoked token at once; only its owner or an admin may revoke it', async () => {
    const team = await createTeam(t, 'Revokers');
    const owner = await createUser(t, 'token-owner', 'member', [team]);
    const other = await createUser(t, 'someone-else', 'member', [team]);
    const { id, token } = (
      await bearer(t, owner.token)
        .post('/api/v1/tokens')
        .send({ name: 'mine', role: 'member' })
        .expect(201)
    ).body;
    await bearer(t, token).get('/api/v1/servers').expect(200);
    await bearer(t, other.token).delete(`/api/v1/tokens/${id}`).expect(404);
    expect((await bearer(t, other.token).get('/api/v1/tokens').expect(200)).body.items).toEqual([]);
    await bearer(t, owner.token).delete(`/api/v1/tokens/${id}`).expect(204);
    await bearer(t, token).get('/api/v1/servers').expect(401);
    await bearer(t, owner.token).delete(`/api/v1/tokens/${id}`).expect(404);
    const another = (
      await bearer(t, owner.token)
        .post('/api/v1/tokens')
        .send({ name: 'two', role: 'member' })
        .expect(201)
    ).body;
    await t.api().delete(`/api/v1/tokens/${another.id}`).expect(204);
    await bearer(t, another.token).get('/api/v1/servers').expect(401);
  });

  it('ends the MCP event stream a token opened when the token is revoked', async () => {
    const { id, token } = (
      await t
        .api()
        .post('/api/v1/tokens')
        .send({ name: 'streaming', serverIds: [serverA] })
        .expect(201)
    ).body;
    const endpoint = `${t.baseUrl}/servers/${serverA}/mcp`;
    const initialized = await postMcp(endpoint, token, initializeRequest());
    expect(initialized.status).toBe(200);
    const stream = await fetch(endpoint, {
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'text/event-stream',
        'Mcp-Session-Id': initialized.headers.get('mcp-session-id')!,
      },
    });
    expect(stream.status).toBe(200);
    const ended = stream.text().then(() => 'ended');
    await t.api().delete(`/api/v1/tokens/${id}`).expect(204);
    const outcome = await Promise.race([
      ended,
      new Promise((resolve) => setTimeout(() => resolve('still open'), 3000)),
    ]);
    expect(outcome).toBe('ended');
  });

  it('stops the tokens of a user who is disabled or deleted, at once', async () => {
    const user = await createUser(t, 'leaver', 'operator');
    const { token } = (
      await bearer(t, user.token)
        .post('/api/v1/tokens')
        .send({ name: 'job', role: 'operator' })
        .expect(201)
    ).body;
    await bearer(t, token).get('/api/v1/gateways').expect(200);
    await t.api().patch(`/api/v1/users/${user.id}`).send({ disabled: true }).expect(200);
    await bearer(t, token).get('/api/v1/gateways').expect(401);
    await bearer(t, user.token).get('/api/v1/gateways').expect(401);
    await t.api().patch(`/api/v1/users/${user.id}`).send({ disabled: false }).expect(200);
    await bearer(t, token).get('/api/v1/gateways').expect(200);
    await t.api().patch(`/api/v1/users/${user.id}`).send({ role: 'member' }).expect(200);
    await bearer(t, token).get('/api/v1/gateways').expect(403);
    await t.api().delete(`/api/v1/users/${user.id}`).expect(204);
    await bearer(t, token).get('/api/v1/servers').expect(401);
  });

  it('keeps tokens issued before users existed working until they expire', async () => {
    const server = legacyToken(t, { sub: 'token:legacy', scope: 'server', srv: [serverA] });
    expect(
      (await postMcp(`${t.baseUrl}/servers/${serverA}/mcp`, server, initializeRequest())).status,
    ).toBe(200);
    expect(
      (await postMcp(`${t.baseUrl}/servers/${serverB}/mcp`, server, initializeRequest())).status,
    ).toBe(403);
    await bearer(t, server).get('/api/v1/servers').expect(403);
    await bearer(t, legacyToken(t, { sub: 'admin', scope: 'admin' }))
      .get('/api/v1/users')
      .expect(200);
    await bearer(t, legacyToken(t, { sub: 'admin', scope: 'admin' }, -5))
      .get('/api/v1/users')
      .expect(401);
  });
});

describe('how many API tokens one user may hold', () => {
  const LIMIT = 4;
  let t: TestApp;
  let server: string;

  beforeAll(async () => {
    t = await startTestApp({ settings: { maxApiTokensPerUser: LIMIT } });
    server = (await t.api().post('/api/v1/servers').send({ name: 'Capped' }).expect(201)).body.id;
  });

  afterAll(async () => {
    await t.close();
  });

  const mint = (bearerToken: string, name: string) =>
    bearer(t, bearerToken).post('/api/v1/tokens').send({ name, role: 'member' });
  const held = async (userId: string) =>
    Number(
      (
        await t.app
          .get(DataSource)
          .query(`SELECT count(*) AS n FROM api_token WHERE owner_id = $1`, [userId])
      )[0].n,
    );

  it('refuses a token past the cap on every route that mints one, until one is revoked or expires', async () => {
    const admin = (await t.api().get('/api/v1/auth/me').expect(200)).body.userId as string;
    const ids: string[] = [];
    for (let index = 0; index < LIMIT - 1; index += 1)
      ids.push((await mint(t.token, `t${index}`).expect(201)).body.id);
    await t.api().post(`/api/v1/servers/${server}/tokens`).send({}).expect(201);

    const refused = await mint(t.token, 'one too many').expect(409);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body).toMatchObject({
      code: 'token.limit_reached',
      active: LIMIT,
      limit: LIMIT,
    });
    expect(refused.body.detail).toContain(`${LIMIT} active API tokens`);
    expect(refused.body.detail).toContain('revoke');
    const perServer = await t.api().post(`/api/v1/servers/${server}/tokens`).send({}).expect(409);
    expect(perServer.body.code).toBe('token.limit_reached');
    const { agent, csrf } = await loginAgent(t.baseUrl);
    const page = await agent
      .post('/admin/tokens')
      .type('form')
      .send({ _csrf: csrf, name: 'from the page', kind: 'role', role: 'member' })
      .expect(409);
    expect(page.text).toContain(`${LIMIT} active API tokens`);
    expect(await held(admin)).toBe(LIMIT);

    // Someone else's tokens are theirs to count.
    const member = await createUser(t, 'capped-member', 'member');
    await mint(member.token, 'mine').expect(201);

    await t.app
      .get(DataSource)
      .query(`UPDATE api_token SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        ids[0],
      ]);
    await mint(t.token, 'after one expired').expect(201);
    await mint(t.token, 'again too many').expect(409);
    await t.api().delete(`/api/v1/tokens/${ids[1]}`).expect(204);
    await mint(t.token, 'after one was revoked').expect(201);
    await mint(t.token, 'and again too many').expect(409);
  });

  it('lets only one of many concurrent mints take the last place', async () => {
    const racer = await createUser(t, 'racer', 'member');
    for (let index = 0; index < LIMIT - 1; index += 1)
      await mint(racer.token, `t${index}`).expect(201);
    const statuses = await Promise.all(
      Array.from(
        { length: 20 },
        async (_, index) => (await mint(racer.token, `race ${index}`)).status,
      ),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    expect(await held(racer.id)).toBe(LIMIT);
  });
});

describe('passwords', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('upgrades a hash of the first format, without parameters, at the next login', async () => {
    const user = await createUser(t, 'old-timer', 'member');
    const db = t.app.get(DataSource);
    // The first format: Node's default scrypt cost, nothing written down; of USER_PASSWORD.
    const salt = Buffer.from('0123456789abcdef');
    const legacy = `scrypt$${salt.toString('base64')}$${scryptSync(USER_PASSWORD, salt, 32).toString('base64')}`;
    await db.query(`UPDATE app_user SET password_hash = $1 WHERE id = $2`, [legacy, user.id]);
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'old-timer', password: USER_PASSWORD })
      .expect(200);
    const [row] = await db.query(`SELECT password_hash FROM app_user WHERE id = $1`, [user.id]);
    expect(row.password_hash).toMatch(`scrypt$N=${t.config.passwordHashing.N},r=8,p=1$`);
    await request(t.baseUrl)
      .post('/api/v1/auth/token')
      .send({ username: 'old-timer', password: USER_PASSWORD })
      .expect(200);
  });

  it('keeps the break-glass admin an enabled admin', async () => {
    const me = (await t.api().get('/api/v1/auth/me').expect(200)).body;
    await t.api().patch(`/api/v1/users/${me.userId}`).send({ role: 'member' }).expect(409);
    await t.api().patch(`/api/v1/users/${me.userId}`).send({ disabled: true }).expect(409);
    await t.api().delete(`/api/v1/users/${me.userId}`).expect(409);
    await t.api().get('/api/v1/users').expect(200);
  });
});

describeOnPostgres('token revocation across replicas', () => {
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    one = await startTestApp();
    two = await startReplica(one);
  });

  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it('stops a token on every replica within a second', async () => {
    const { id, token } = (
      await one.api().post('/api/v1/tokens').send({ name: 'spread', role: 'member' }).expect(201)
    ).body;
    await bearer(two, token).get('/api/v1/servers').expect(200);
    await bearer(one, token).get('/api/v1/servers').expect(200);
    await one.api().delete(`/api/v1/tokens/${id}`).expect(204);
    await eventually(() => bearer(two, token).get('/api/v1/servers').expect(401), 1000, 20);
  });
});
