import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { OAuthRefreshScheduler } from '../../src/sync/oauth-refresh.scheduler';
import { UpstreamOAuthToken } from '../../src/upstream/oauth/upstream-oauth-token.entity';
import { writeEndlessly } from '../fixtures/endless-body';
import {
  MACHINE_CLIENT,
  type OAuthUpstreamFixture,
  startOAuthUpstream,
} from '../fixtures/oauth-upstream';
import { createTeam, createUser, pageSession, type TestUser } from '../support/identities';
import { connectClient, eventually } from '../support/mcp-client';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { modernClient } from '../support/modern-client';
import { ADMIN_PASSWORD, startReplica, startTestApp, type TestApp } from '../support/test-app';

/** Seconds an access token of the provider lives: short, so that refresh is exercised. */
const TOKEN_TTL_SECONDS = 4;

type PageSession = { cookie: string; csrf: string };

describe('OAuth 2.1 towards upstream MCP servers', () => {
  let t: TestApp;
  let idp: OAuthUpstreamFixture;
  let admin: PageSession;

  beforeAll(async () => {
    idp = await startOAuthUpstream({ accessTokenTtlSeconds: TOKEN_TTL_SECONDS });
    t = await startTestApp({ publicUrl: true });
    admin = await pageSession(t, 'admin', ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  /**
   * A person connects an account from the admin pages: the Connect form (with its CSRF token)
   * sends the browser to the provider, where they sign in as `providerAccount` and consent; the
   * provider sends the browser back to Portico's callback with the cookie Connect set.
   */
  async function connect(
    session: PageSession,
    gatewayId: string,
    account: 'mine' | 'gateway',
    providerAccount: string,
    app: TestApp = t,
  ): Promise<void> {
    const started = await request(app.baseUrl)
      .post(`/admin/connections/${gatewayId}/connect`)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: session.csrf, account })
      .expect(200);
    const pending = pendingCookie(started.headers['set-cookie']);
    const authorizationUrl = authorizationLink(started.text);
    expect(authorizationUrl).toMatch(new RegExp(`^${idp.issuer}/`));
    expect(started.text).toContain(`<meta http-equiv="refresh" content="0;url=`);
    const back = await idp.consent(authorizationUrl, providerAccount);
    expect(back.origin + back.pathname).toBe(`${t.baseUrl}/admin/connections/callback`);
    const done = await request(app.baseUrl)
      .get(back.pathname + back.search)
      .set('Cookie', pending)
      .expect(200);
    expect(done.text).toContain('Account connected');
  }

  async function whoami(client: Client, name: string): Promise<string> {
    const result = (await client.callTool({ name })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    return (result.content[0] as { text: string }).text;
  }

  /** The JSON-RPC error a call fails with. */
  async function callError(
    client: Client,
    name: string,
  ): Promise<{ code: number; message: string; data?: unknown }> {
    try {
      await client.callTool({ name });
    } catch (error) {
      return error as { code: number; message: string; data?: unknown };
    }
    throw new Error(`${name} did not fail`);
  }

  function tokenRows(gatewayId: string): Promise<UpstreamOAuthToken[]> {
    return t.app.get(DataSource).getRepository(UpstreamOAuthToken).findBy({ gatewayId });
  }

  describe('shared mode', () => {
    let gatewayId: string;

    it('an operator registers an OAuth-protected upstream from the admin pages and connects it once', async () => {
      const teamId = await createTeam(t, 'Platform');
      await createUser(t, 'olga', 'operator', [teamId]);
      const olga = await pageSession(t, 'olga');
      const form = await request(t.baseUrl)
        .get('/admin/gateways/new')
        .set('Cookie', olga.cookie)
        .expect(200);
      expect(form.text).toContain('name="oauthMode"');
      const created = await request(t.baseUrl)
        .post('/admin/gateways')
        .set('Cookie', olga.cookie)
        .type('form')
        .send({
          _csrf: olga.csrf,
          name: 'Shared upstream',
          url: idp.mcpUrl('shared'),
          transport: 'streamable-http',
          teamId,
          authType: 'oauth',
          oauthMode: 'shared',
          oauthScope: 'mcp',
        })
        .expect(303);
      gatewayId = /\/admin\/gateways\/([0-9a-f-]{36})$/.exec(created.headers.location!)![1]!;

      const before = await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200);
      expect(before.body).toMatchObject({
        authType: 'oauth',
        status: 'unreachable',
        toolCount: 0,
        oauth: {
          mode: 'shared',
          connected: false,
          connectUrl: `${t.baseUrl}/admin/connections/${gatewayId}`,
        },
      });
      expect(before.body.lastError).toContain('No account is connected');

      await connect(olga, gatewayId, 'gateway', 'olga-at-provider');

      const after = await eventually(async () => {
        const response = await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200);
        expect(response.body.toolCount).toBe(1);
        return response.body as {
          status: string;
          oauth: { connected: boolean; expiresAt: string };
        };
      });
      expect(after.status).toBe('healthy');
      expect(after.oauth.connected).toBe(true);
      expect(Date.parse(after.oauth.expiresAt)).toBeGreaterThan(Date.now());
      const page = await request(t.baseUrl)
        .get(`/admin/gateways/${gatewayId}`)
        .set('Cookie', olga.cookie)
        .expect(200);
      expect(page.text).toContain('connected, token expires');
    });

    it('calls the upstream with the connected account, whoever calls', async () => {
      const client = await connectClient(t.baseUrl, { token: t.token });
      try {
        expect(await whoami(client, 'shared-upstream-whoami')).toBe('account:olga-at-provider');
      } finally {
        await client.close();
      }
    });

    it('refreshes the token before it expires even when no call needs it', async () => {
      const [before] = await tokenRows(gatewayId);
      const refreshesBefore = idp.issued('refresh_token');
      // Due a quarter of its lifetime before it expires; swept 0.7 s before.
      const expires = before!.expiresAt!.getTime();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires - 700 - Date.now())));
      // The sweep starts while the token is valid; how long its refresh takes is the machine's.
      expect(Date.now()).toBeLessThan(expires);
      await t.app.get(OAuthRefreshScheduler).sweep();
      const [after] = await tokenRows(gatewayId);
      expect(idp.issued('refresh_token')).toBe(refreshesBefore + 1);
      expect(after!.refreshedAt!.getTime()).toBeGreaterThan(before!.refreshedAt!.getTime());
      expect(after!.expiresAt!.getTime()).toBeGreaterThan(before!.expiresAt!.getTime());
    });

    it('stores the tokens sealed, and no response carries them', async () => {
      const [row] = await tokenRows(gatewayId);
      expect(row!.owner).toBe('shared');
      expect(row!.tokens).toMatch(/^v1\./);
      expect(row!.tokens).not.toContain('access_token');
      const listed = await t.api().get('/api/v1/gateways').expect(200);
      expect(JSON.stringify(listed.body)).not.toMatch(/access_token|refresh_token/);
    });

    it('refreshes the token once it expires, and calls keep working', async () => {
      const client = await connectClient(t.baseUrl, { token: t.token });
      try {
        const refreshesBefore = idp.issued('refresh_token');
        await new Promise((resolve) => setTimeout(resolve, TOKEN_TTL_SECONDS * 1000 + 500));
        expect(await whoami(client, 'shared-upstream-whoami')).toBe('account:olga-at-provider');
        expect(idp.issued('refresh_token')).toBeGreaterThan(refreshesBefore);
        const [row] = await tokenRows(gatewayId);
        expect(row!.expiresAt!.getTime()).toBeGreaterThan(Date.now());
        expect(row!.refreshError).toBeNull();
      } finally {
        await client.close();
      }
    });
  });

  describe('per-user mode, two users', () => {
    let gatewayId: string;
    let serverId: string;
    let alice: TestUser;
    let bob: TestUser;
    let aliceClient: Client;
    let bobClient: Client;
    let teamId: string;
    const tool = 'personal-upstream-whoami';

    /**
     * A 2025 session of a new member whose client takes URL elicitations: asked to connect, the
     * person does (on `connectAt`) or refuses; what the client was asked and told is kept.
     */
    async function consentingSession(
      name: string,
      answer: 'accept' | 'decline',
      options: { baseUrl?: string; connectAt?: TestApp } = {},
    ): Promise<{ client: Client; asked: unknown[]; completed: string[] }> {
      const user = await createUser(t, name, 'member', [teamId]);
      const client = await connectClient(options.baseUrl ?? t.baseUrl, {
        token: user.token,
        path: `/servers/${serverId}/mcp`,
        capabilities: { elicitation: { url: {} } },
      });
      const asked: unknown[] = [];
      const completed: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        if (answer === 'decline') return { action: 'decline' };
        const app = options.connectAt ?? t;
        await connect(await pageSession(app, name), gatewayId, 'mine', `${name}-at-provider`, app);
        return { action: 'accept' };
      });
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
        completed.push(notification.params.elicitationId);
      });
      return { client, asked, completed };
    }

    beforeAll(async () => {
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({
          name: 'Personal upstream',
          url: idp.mcpUrl('per-user'),
          auth: { type: 'oauth', mode: 'per-user' },
        })
        .expect(201);
      gatewayId = created.body.id;
      await eventually(async () => {
        const gateway = await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200);
        expect(gateway.body.status).toBe('unreachable');
        expect(gateway.body.lastError).toContain('for its catalogue sync');
      });
      // Sync has no caller: it uses the account an operator connects for the gateway.
      await connect(admin, gatewayId, 'gateway', 'catalogue-bot');
      const toolId = await eventually(async () => {
        const tools = await t.api().get(`/api/v1/tools?gatewayId=${gatewayId}`).expect(200);
        expect(tools.body.items).toHaveLength(1);
        return tools.body.items[0].id as string;
      });
      teamId = await createTeam(t, 'Readers');
      serverId = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Personal', teamId, toolIds: [toolId] })
          .expect(201)
      ).body.id;
      alice = await createUser(t, 'alice', 'member', [teamId]);
      bob = await createUser(t, 'bob', 'member', [teamId]);
      aliceClient = await connectClient(t.baseUrl, {
        token: alice.token,
        path: `/servers/${serverId}/mcp`,
      });
      bobClient = await connectClient(t.baseUrl, {
        token: bob.token,
        path: `/servers/${serverId}/mcp`,
      });
    });

    afterAll(async () => {
      await aliceClient.close();
      await bobClient.close();
    });

    it('tells a user who has not connected where to connect, with MCP’s URL elicitation error', async () => {
      const error = await callError(aliceClient, tool);
      const connectUrl = `${t.baseUrl}/admin/connections/${gatewayId}`;
      expect(error.code).toBe(ErrorCode.UrlElicitationRequired);
      expect(error.message).toContain(connectUrl);
      expect(error.data).toMatchObject({ elicitations: [{ mode: 'url', url: connectUrl }] });
    });

    it('lets each user connect their own account, and each call goes as the caller', async () => {
      await connect(await pageSession(t, 'alice'), gatewayId, 'mine', 'alice-at-provider');
      await connect(await pageSession(t, 'bob'), gatewayId, 'mine', 'bob-at-provider');
      expect(await whoami(aliceClient, tool)).toBe('account:alice-at-provider');
      expect(await whoami(bobClient, tool)).toBe('account:bob-at-provider');
      expect(await whoami(aliceClient, tool)).toBe('account:alice-at-provider');

      const mine = await request(t.baseUrl)
        .get(`/api/v1/gateways/${gatewayId}/oauth/me`)
        .set('Authorization', `Bearer ${alice.token}`)
        .expect(200);
      expect(mine.body).toMatchObject({
        mode: 'per-user',
        connection: { account: 'user', userId: alice.id, connected: true, refreshError: null },
      });
      const all = await t.api().get(`/api/v1/gateways/${gatewayId}/oauth/connections`).expect(200);
      expect(
        (all.body as { account: string; userId: string | null }[])
          .map((row) => row.userId ?? row.account)
          .sort(),
      ).toEqual([alice.id, bob.id, 'shared'].sort());
      const gateway = await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200);
      expect(gateway.body.oauth).toMatchObject({ mode: 'per-user', connectedUsers: 2 });
    });

    it('never falls back to another account when a user disconnects', async () => {
      await request(t.baseUrl)
        .delete(`/api/v1/gateways/${gatewayId}/oauth/me`)
        .set('Authorization', `Bearer ${bob.token}`)
        .expect(204);
      expect((await callError(bobClient, tool)).code).toBe(ErrorCode.UrlElicitationRequired);
      expect(await whoami(aliceClient, tool)).toBe('account:alice-at-provider');
      await connect(await pageSession(t, 'bob'), gatewayId, 'mine', 'bob-at-provider');
      expect(await whoami(bobClient, tool)).toBe('account:bob-at-provider');
    });

    it('a revoked grant asks that user to reconnect, shows in the admin pages, and leaves others alone', async () => {
      await idp.revoke('alice-at-provider');
      const error = await callError(aliceClient, tool);
      expect(error.code).toBe(ErrorCode.UrlElicitationRequired);
      expect(error.message).toContain('revoked');
      expect(await whoami(bobClient, tool)).toBe('account:bob-at-provider');

      const mine = await request(t.baseUrl)
        .get(`/api/v1/gateways/${gatewayId}/oauth/me`)
        .set('Authorization', `Bearer ${alice.token}`)
        .expect(200);
      expect(mine.body.connection).toMatchObject({ connected: false });
      expect(mine.body.connection.refreshError).toContain('revoked');
      const gateway = await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200);
      expect(gateway.body.oauth).toMatchObject({ connectedUsers: 1, failedUsers: 1 });
      const page = await request(t.baseUrl)
        .get(`/admin/gateways/${gatewayId}`)
        .set('Cookie', admin.cookie)
        .expect(200);
      expect(page.text).toContain('need(s) reconnecting');
      const own = await pageSession(t, 'alice');
      const connection = await request(t.baseUrl)
        .get(`/admin/connections/${gatewayId}`)
        .set('Cookie', own.cookie)
        .expect(200);
      expect(connection.text).toContain('Needs reconnecting');
      const metrics = await t.api().get('/metrics').expect(200);
      expect(metrics.text).toMatch(
        /portico_upstream_oauth_refreshes_total\{outcome="revoked"\} 1\b/,
      );
      const list = await request(t.baseUrl)
        .get('/admin/connections')
        .set('Cookie', own.cookie)
        .expect(200);
      expect(list.text).toContain('Personal upstream');
      expect(list.text).toContain(`/admin/connections/${gatewayId}`);

      await connect(own, gatewayId, 'mine', 'alice-at-provider');
      expect(await whoami(aliceClient, tool)).toBe('account:alice-at-provider');
    });

    it('refreshes an expired token once, however many calls need it at the same time', async () => {
      const second = await connectClient(t.baseUrl, {
        token: alice.token,
        path: `/servers/${serverId}/mcp`,
      });
      try {
        expect(await whoami(second, tool)).toBe('account:alice-at-provider');
        await new Promise((resolve) => setTimeout(resolve, TOKEN_TTL_SECONDS * 1000 + 500));
        const before = idp.issued('refresh_token');
        // The token the refresh brings outlives the calls however slow the machine: a second
        // refresh can only be one that did not wait for the first.
        idp.setAccessTokenTtl(600);
        const answers = await Promise.all(
          [aliceClient, aliceClient, aliceClient, second, second].map((client) =>
            whoami(client, tool),
          ),
        );
        expect(answers).toEqual(Array(5).fill('account:alice-at-provider'));
        // The provider rotates refresh tokens: a second refresh with the same one would fail.
        expect(idp.issued('refresh_token')).toBe(before + 1);
      } finally {
        idp.setAccessTokenTtl(TOKEN_TTL_SECONDS);
        await second.close();
      }
    });

    it('asks a user who has not connected through their own client, and the call goes through', async () => {
      const connectUrl = `${t.baseUrl}/admin/connections/${gatewayId}`;
      const carol = await consentingSession('carol', 'accept');
      try {
        expect(await whoami(carol.client, tool)).toBe('account:carol-at-provider');
        expect(carol.asked).toEqual([expect.objectContaining({ mode: 'url', url: connectUrl })]);
        const { elicitationId } = carol.asked[0] as { elicitationId: string };
        await eventually(() => expect(carol.completed).toEqual([elicitationId]));
        // Connected now: the next call asks nothing.
        expect(await whoami(carol.client, tool)).toBe('account:carol-at-provider');
        expect(carol.asked).toHaveLength(1);
      } finally {
        await carol.client.close();
      }

      const dave = await consentingSession('dave', 'decline');
      try {
        const refused = await callError(dave.client, tool);
        expect(refused.code).toBe(ErrorCode.UrlElicitationRequired);
        expect(refused.message).toContain(connectUrl);
        expect(dave.asked).toHaveLength(1);
      } finally {
        await dave.client.close();
      }

      // The 2026-07-28 wire asks in a URL round; the client's retry runs the call again.
      const erin = await createUser(t, 'erin', 'member', [teamId]);
      // One that cannot take a URL round hears the capability the call needs (-32042 is retired
      // on its wire), with the link.
      const linkless = await modernClient(t, {
        token: erin.token,
        path: `/servers/${serverId}/mcp`,
        capabilities: {},
      });
      try {
        const refused: unknown = await linkless.callTool({ name: tool, arguments: {} }).then(
          () => null,
          (error: unknown) => error,
        );
        // The SDK keeps of the data what the code defines; the link is in the message too.
        expect(refused).toMatchObject({
          code: -32021,
          data: { requiredCapabilities: { elicitation: { url: {} } } },
        });
        expect((refused as Error).message).toContain(connectUrl);
      } finally {
        await linkless.close();
      }
      const rounds: unknown[] = [];
      const modern = await modernClient(t, {
        token: erin.token,
        path: `/servers/${serverId}/mcp`,
        capabilities: { elicitation: { url: {} } },
        elicit: async (params) => {
          rounds.push(params);
          await connect(await pageSession(t, 'erin'), gatewayId, 'mine', 'erin-at-provider');
          return { action: 'accept' };
        },
      });
      try {
        const result = (await modern.callTool({ name: tool, arguments: {} })) as CallToolResult;
        expect(result.content).toEqual([{ type: 'text', text: 'account:erin-at-provider' }]);
        expect(rounds).toEqual([expect.objectContaining({ mode: 'url', url: connectUrl })]);
      } finally {
        await modern.close();
      }
    });

    describeOnPostgres('with two replicas', () => {
      let replica: TestApp;

      beforeAll(async () => {
        replica = await startReplica(t);
      });

      afterAll(async () => {
        await replica.close();
      });

      it('refreshes once across replicas, and the other replica uses what the first stored', async () => {
        const elsewhere = await connectClient(replica.baseUrl, {
          token: bob.token,
          path: `/servers/${serverId}/mcp`,
        });
        try {
          expect(await whoami(elsewhere, tool)).toBe('account:bob-at-provider');
          await new Promise((resolve) => setTimeout(resolve, TOKEN_TTL_SECONDS * 1000 + 500));
          const before = idp.issued('refresh_token');
          // As above: the refreshed token outlives the calls, on either replica.
          idp.setAccessTokenTtl(600);
          const answers = await Promise.all(
            [bobClient, elsewhere, bobClient, elsewhere].map((client) => whoami(client, tool)),
          );
          expect(answers).toEqual(Array(4).fill('account:bob-at-provider'));
          expect(idp.issued('refresh_token')).toBe(before + 1);
        } finally {
          idp.setAccessTokenTtl(TOKEN_TTL_SECONDS);
          await elsewhere.close();
        }
      });

      it('goes on with a call on one replica once its user connected on the other', async () => {
        const frank = await consentingSession('frank', 'accept', {
          baseUrl: replica.baseUrl,
          connectAt: t,
        });
        try {
          expect(await whoami(frank.client, tool)).toBe('account:frank-at-provider');
          expect(frank.asked).toHaveLength(1);
          await eventually(() => expect(frank.completed).toHaveLength(1));
        } finally {
          await frank.client.close();
        }
      });
    });

    it('refuses a member connecting the gateway’s own account', async () => {
      const session = await pageSession(t, 'alice');
      await request(t.baseUrl)
        .post(`/admin/connections/${gatewayId}/connect`)
        .set('Cookie', session.cookie)
        .type('form')
        .send({ _csrf: session.csrf, account: 'gateway' })
        .expect(403);
    });
  });

  describe('client credentials', () => {
    it('fetches machine tokens without a person, syncs and calls', async () => {
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({
          name: 'Machine upstream',
          url: idp.mcpUrl('machine'),
          auth: {
            type: 'oauth',
            mode: 'client-credentials',
            clientId: MACHINE_CLIENT.id,
            clientSecret: MACHINE_CLIENT.secret,
          },
        })
        .expect(201);
      expect(JSON.stringify(created.body)).not.toContain(MACHINE_CLIENT.secret);
      const gateway = await eventually(async () => {
        const response = await t.api().get(`/api/v1/gateways/${created.body.id}`).expect(200);
        expect(response.body.toolCount).toBe(1);
        return response.body as { status: string; oauth: { connected: boolean } };
      });
      expect(gateway).toMatchObject({ status: 'healthy', oauth: { connected: true } });
      const client = await connectClient(t.baseUrl, { token: t.token });
      try {
        expect(await whoami(client, 'machine-upstream-whoami')).toBe(
          `account:client:${MACHINE_CLIENT.id}`,
        );
      } finally {
        await client.close();
      }
      expect(await tokenRows(created.body.id)).toHaveLength(1);
      // Tokens belong to the upstream and the credentials they were obtained with.
      await t
        .api()
        .patch(`/api/v1/gateways/${created.body.id}`)
        .send({ auth: { type: 'none' } })
        .expect(200);
      expect(await tokenRows(created.body.id)).toHaveLength(0);
    });

    it('reads what an authorization server answers only to a bound', async () => {
      // Its challenge names resource metadata that never ends.
      const hostile = createServer((incoming, response) => {
        incoming.resume();
        if (incoming.method === 'POST') {
          response.writeHead(401, {
            'www-authenticate': `Bearer resource_metadata="${origin}/metadata"`,
          });
          response.end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(`{"resource":"${origin}/mcp","x":"`);
        writeEndlessly(response);
      });
      await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
      try {
        const started = Date.now();
        const created = await t
          .api()
          .post('/api/v1/gateways')
          .send({
            name: 'Endless metadata',
            url: `${origin}/mcp`,
            auth: { type: 'oauth', mode: 'client-credentials', clientId: 'c', clientSecret: 's' },
          })
          .expect(201);
        expect(created.body).toMatchObject({
          status: 'unreachable',
          lastError: expect.stringContaining('the answer is larger than 1048576 bytes'),
        });
        expect(Date.now() - started).toBeLessThan(5000);
        await t.api().get(`/api/v1/gateways/${created.body.id}`).expect(200);
      } finally {
        hostile.closeAllConnections();
        await new Promise((resolve) => hostile.close(resolve));
      }
    });

    it('refuses client credentials without a client id and secret', async () => {
      await t
        .api()
        .post('/api/v1/gateways')
        .send({
          name: 'Machine without client',
          url: `${idp.mcpUrl('machine')}?again`,
          auth: { type: 'oauth', mode: 'client-credentials' },
        })
        .expect(422);
    });
  });

  describe('the callback', () => {
    it('refuses a return that this browser did not start (CSRF), and redirects nowhere', async () => {
      const forged = await request(t.baseUrl)
        .get('/admin/connections/callback?code=stolen&state=guessed')
        .expect(400);
      expect(forged.text).toContain('not started in this browser');
      expect(forged.headers.location).toBeUndefined();
    });

    it('refuses a return whose state differs from the one this browser started', async () => {
      const [gateway] = (await t.api().get('/api/v1/gateways').expect(200)).body.items.filter(
        (item: { name: string }) => item.name === 'Personal upstream',
      );
      const started = await request(t.baseUrl)
        .post(`/admin/connections/${gateway.id}/connect`)
        .set('Cookie', admin.cookie)
        .type('form')
        .send({ _csrf: admin.csrf, account: 'gateway' })
        .expect(200);
      const pending = pendingCookie(started.headers['set-cookie']);
      await request(t.baseUrl)
        .get('/admin/connections/callback?code=x&state=another')
        .set('Cookie', pending)
        .expect(400);
    });

    it('refuses a Connect form without its CSRF token', async () => {
      const [gateway] = (await t.api().get('/api/v1/gateways').expect(200)).body.items;
      await request(t.baseUrl)
        .post(`/admin/connections/${gateway.id}/connect`)
        .set('Cookie', admin.cookie)
        .type('form')
        .send({ account: 'gateway' })
        .expect(403);
    });
  });
});

function pendingCookie(setCookie: string | string[] | undefined): string {
  const line = [setCookie ?? []]
    .flat()
    .find((value) => value.startsWith('portico_upstream_oauth='));
  if (!line) throw new Error('Connect set no pending cookie');
  return line.split(';')[0]!;
}

/** Where the page after Connect sends the browser, as the browser reads the escaped attribute. */
function authorizationLink(html: string): string {
  const href = /id="authorize" href="([^"]+)"/.exec(html)?.[1];
  if (!href) throw new Error('No link to the provider on the page');
  return href
    .replace(/&amp;/g, '&')
    .replace(/&#x3D;/g, '=')
    .replace(/&#x27;/g, "'");
}
