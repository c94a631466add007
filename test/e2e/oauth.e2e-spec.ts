import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { createTeam, createUser, pageSession, USER_PASSWORD } from '../support/identities';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { MemoryOAuthProvider, openConsent, signInAndConsent } from '../support/oauth-client';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/test-app';
import { DataSource } from 'typeorm';
import { OAuthGrants } from '../../src/oauth/oauth-grants.service';

const ADMIN = { username: 'admin', password: ADMIN_PASSWORD };

describe('OAuth 2.1 for MCP clients, with the embedded authorization server', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let serverA: string;
  let serverB: string;

  beforeAll(async () => {
    upstream = await startUpstream({ tools: [echoTool('hello', 'up')] });
    t = await startTestApp({ publicUrl: true });
    const gateway = (
      await t.api().post('/api/v1/gateways').send({ name: 'Up', url: upstream.url }).expect(201)
    ).body;
    const tools = (await t.api().get(`/api/v1/tools?gatewayId=${gateway.id}`).expect(200)).body;
    const toolIds = tools.items.map((tool: { id: string }) => tool.id);
    serverA = (await t.api().post('/api/v1/servers').send({ name: 'A', toolIds }).expect(201)).body
      .id;
    serverB = (await t.api().post('/api/v1/servers').send({ name: 'B', toolIds }).expect(201)).body
      .id;
  });

  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  const endpoint = (serverId: string) => new URL(`/servers/${serverId}/mcp`, t.baseUrl);

  async function connect(url: URL, provider: MemoryOAuthProvider): Promise<Client> {
    const client = new Client({ name: 'oauth-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return client;
  }

  /** The whole first run of a client: 401, discovery, registration, sign-in, code exchange. */
  async function authorizeClient(url: URL, credentials = ADMIN): Promise<MemoryOAuthProvider> {
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = new Client({ name: 'oauth-test', version: '1' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const landed = await signInAndConsent(provider.authorizationUrl!, credentials);
    expect(`${landed.origin}${landed.pathname}`).toBe(provider.redirectUrl);
    expect(landed.searchParams.get('iss')).toBe(t.baseUrl);
    await transport.finishAuth(landed.searchParams.get('code')!);
    return provider;
  }

  it('answers 401 with where to find the resource metadata, which names the authorization server', async () => {
    const unauthorized = await postMcp(endpoint(serverA).href, '', initializeRequest(), {
      Authorization: '',
    });
    expect(unauthorized.status).toBe(401);
    const metadataUrl = `${t.baseUrl}/.well-known/oauth-protected-resource/servers/${serverA}/mcp`;
    expect(unauthorized.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}"`,
    );
    const resource = await request(t.baseUrl).get(new URL(metadataUrl).pathname).expect(200);
    expect(resource.body).toEqual({
      resource: endpoint(serverA).href,
      authorization_servers: [t.baseUrl],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: expect.any(String),
    });
    const server = await request(t.baseUrl)
      .get('/.well-known/oauth-authorization-server')
      .expect(200);
    expect(server.body).toMatchObject({
      issuer: t.baseUrl,
      authorization_endpoint: `${t.baseUrl}/oauth/authorize`,
      token_endpoint: `${t.baseUrl}/oauth/token`,
      registration_endpoint: `${t.baseUrl}/oauth/register`,
      revocation_endpoint: `${t.baseUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
    await request(t.baseUrl).get('/.well-known/oauth-protected-resource/servers/x/mcp').expect(404);
  });

  it('runs the SDK client’s whole flow: discovery, registration, sign-in, token, MCP call, refresh, revoke', async () => {
    const provider = await authorizeClient(endpoint(serverA));
    expect(provider.client?.client_id).toEqual(expect.any(String));
    const first = provider.saved!;
    expect(first).toMatchObject({ token_type: 'Bearer', scope: 'mcp', expires_in: 3600 });

    const client = await connect(endpoint(serverA), provider);
    const result = await client.callTool({ name: 'up-hello', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'up:hello' }]);
    await client.close();

    // A refresh rotates both tokens; the old refresh token is spent.
    expect(await auth(provider, { serverUrl: endpoint(serverA) })).toBe('AUTHORIZED');
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const again = await connect(endpoint(serverA), provider);
    expect((await again.listTools()).tools.map((tool) => tool.name)).toEqual(['up-hello']);
    await again.close();

    // Revoking the refresh token (RFC 7009) ends the grant: its access token stops at once.
    await request(t.baseUrl)
      .post('/oauth/revoke')
      .type('form')
      .send({ token: second.refresh_token, client_id: provider.client!.client_id })
      .expect(200);
    const refused = await postMcp(endpoint(serverA).href, second.access_token, initializeRequest());
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('revokes the whole grant when a spent refresh token comes back', async () => {
    const provider = await authorizeClient(endpoint(serverA));
    const stolen = provider.saved!.refresh_token!;
    const refresh = (token: string) =>
      request(t.baseUrl).post('/oauth/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: provider.client!.client_id,
      });
    const rotated = (await refresh(stolen).expect(200)).body;
    const reuse = await refresh(stolen).expect(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect(
      (await postMcp(endpoint(serverA).href, rotated.access_token, initializeRequest())).status,
    ).toBe(401);
    expect((await refresh(rotated.refresh_token).expect(400)).body.error).toBe('invalid_grant');
  });

  it('purges grants that can bring no token any more, and keeps every grant that still can', async () => {
    const database = t.app.get(DataSource);
    const grantOf = async (provider: MemoryOAuthProvider): Promise<string> =>
      (
        await database.query(`SELECT id FROM oauth_grant WHERE client_id = $1`, [
          provider.client!.client_id,
        ])
      )[0].id;
    const live = await authorizeClient(endpoint(serverA));
    const revoked = await authorizeClient(endpoint(serverA));
    const spent = await authorizeClient(endpoint(serverA));
    const young = await authorizeClient(endpoint(serverA));
    await request(t.baseUrl)
      .post('/oauth/revoke')
      .type('form')
      .send({ token: revoked.saved!.refresh_token, client_id: revoked.client!.client_id })
      .expect(200);
    const [liveId, revokedId, spentId, youngId] = await Promise.all(
      [live, revoked, spent, young].map(grantOf),
    );
    // Two days on for all but the young grant: their codes are long spent, the spent grant's
    // refresh token has run out, and the revocation is a day old. The young one's ran out too.
    const older = [liveId, revokedId, spentId];
    await database.query(
      `UPDATE oauth_grant SET created_at = created_at - interval '2 days',
         revoked_at = revoked_at - interval '2 days' WHERE id = ANY($1)`,
      [older],
    );
    await database.query(
      `UPDATE oauth_code SET expires_at = expires_at - interval '2 days' WHERE grant_id = ANY($1)`,
      [older],
    );
    await database.query(
      `UPDATE oauth_refresh_token SET expires_at = now() - interval '1 minute' WHERE grant_id = ANY($1)`,
      [[spentId, youngId]],
    );

    await t.app.get(OAuthGrants).purgeExpired();

    const kept = await database.query(`SELECT id FROM oauth_grant WHERE id = ANY($1)`, [
      [liveId, revokedId, spentId, youngId],
    ]);
    expect(kept.map((row: { id: string }) => row.id).sort()).toEqual([liveId, youngId].sort());
    // What is left works; a purged grant's access token, though within its hour, does not.
    const mcpStatus = async (provider: MemoryOAuthProvider) =>
      (await postMcp(endpoint(serverA).href, provider.saved!.access_token, initializeRequest()))
        .status;
    expect(await mcpStatus(live)).toBe(200);
    expect(await mcpStatus(spent)).toBe(401);
    expect(await auth(live, { serverUrl: endpoint(serverA) })).toBe('AUTHORIZED');
  });

  it('purges registrations a day old that no user ever granted anything, and keeps every other', async () => {
    const database = t.app.get(DataSource);
    const register = async (): Promise<string> =>
      (
        await request(t.baseUrl)
          .post('/oauth/register')
          .send(new MemoryOAuthProvider().clientMetadata)
          .expect(201)
      ).body.client_id;
    const [abandoned, young] = [await register(), await register()];
    const granted = (await authorizeClient(endpoint(serverA))).client!.client_id;
    // Two days on for all but the young one; the granted client's grant has gone meanwhile.
    await database.query(
      `UPDATE oauth_client SET created_at = created_at - interval '2 days', granted_at = granted_at - interval '2 days' WHERE client_id = ANY($1)`,
      [[abandoned, granted]],
    );
    await database.query(
      `DELETE FROM oauth_grant WHERE client_id = $1`, // codes and refresh tokens go with it
      [granted],
    );

    await t.app.get(OAuthGrants).purgeExpired();

    const kept = await database.query(
      `SELECT client_id FROM oauth_client WHERE client_id = ANY($1)`,
      [[abandoned, young, granted]],
    );
    expect(kept.map((row: { client_id: string }) => row.client_id).sort()).toEqual(
      [young, granted].sort(),
    );
  });

  it("spends a refresh token only for its own client: another client's try neither uses nor revokes it", async () => {
    const victim = await authorizeClient(endpoint(serverA));
    const other = await authorizeClient(endpoint(serverA));
    const refresh = (clientId: string) =>
      request(t.baseUrl).post('/oauth/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: victim.saved!.refresh_token!,
        client_id: clientId,
      });
    const refused = await refresh(other.client!.client_id).expect(400);
    expect(refused.body).toMatchObject({
      error: 'invalid_grant',
      error_description: 'The grant was revoked or belongs to another client',
    });
    const rotated = (await refresh(victim.client!.client_id).expect(200)).body;
    expect(
      (await postMcp(endpoint(serverA).href, rotated.access_token, initializeRequest())).status,
    ).toBe(200);
  });

  it('binds a token to its server: never another server, /mcp or the REST API', async () => {
    const provider = await authorizeClient(endpoint(serverA));
    const token = provider.saved!.access_token;
    const other = await postMcp(endpoint(serverB).href, token, initializeRequest());
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/servers/${serverB}/mcp", error="invalid_token", error_description="This token was issued for another MCP endpoint."`,
    );
    expect((await postMcp(`${t.baseUrl}/mcp`, token, initializeRequest())).status).toBe(401);
    await request(t.baseUrl)
      .get('/api/v1/servers')
      .set('Authorization', `Bearer ${token}`)
      .expect(403);
    const mine = await postMcp(endpoint(serverA).href, token, initializeRequest());
    expect(mine.status).toBe(200);
    await mine.text();
  });

  it('refuses an authorization without S256 PKCE, a resource, or with a foreign resource', async () => {
    const provider = new MemoryOAuthProvider();
    const registered = await request(t.baseUrl)
      .post('/oauth/register')
      .send(provider.clientMetadata)
      .expect(201);
    const base = {
      client_id: registered.body.client_id,
      redirect_uri: provider.redirectUrl,
      response_type: 'code',
      state: 's1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: endpoint(serverA).href,
    };
    const errorOf = async (query: Record<string, string | undefined>) => {
      const response = await request(t.baseUrl).get('/oauth/authorize').query(query).expect(302);
      return new URL(response.headers.location!).searchParams.get('error');
    };
    expect(await errorOf({ ...base, code_challenge_method: 'plain' })).toBe('invalid_request');
    expect(await errorOf({ ...base, code_challenge: undefined })).toBe('invalid_request');
    expect(await errorOf({ ...base, resource: undefined })).toBe('invalid_target');
    expect(await errorOf({ ...base, resource: 'https://evil.example.com/mcp' })).toBe(
      'invalid_target',
    );
    expect(await errorOf({ ...base, scope: 'admin' })).toBe('invalid_scope');
    const ok = await request(t.baseUrl).get('/oauth/authorize').query(base).expect(302);
    expect(ok.headers.location).toMatch(/\/oauth\/consent\?request=/);
    await request(t.baseUrl)
      .post('/oauth/register')
      .send({ ...provider.clientMetadata, redirect_uris: ['http://evil.example.com/cb'] })
      .expect(400);
  });

  it('registers a client whose metadata holds what PostgreSQL cannot store, repaired', async () => {
    const provider = new MemoryOAuthProvider();
    const body = JSON.stringify({ ...provider.clientMetadata, client_name: 'NAME' }).replace(
      'NAME',
      'evil\\ud800\\u0000',
    );
    const registered = await request(t.baseUrl)
      .post('/oauth/register')
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    const stored = await t.app
      .get(DataSource)
      .query<{ name: string }[]>(
        `SELECT metadata->>'client_name' AS name FROM oauth_client WHERE client_id = $1`,
        [registered.body.client_id],
      );
    expect(stored).toEqual([{ name: 'evil\uFFFD' }]);
  });

  it('shows a client’s self-chosen name escaped, and only to a signed-in user', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const provider = new MemoryOAuthProvider();
    const registered = await request(t.baseUrl)
      .post('/oauth/register')
      .send({ ...provider.clientMetadata, client_name: hostile })
      .expect(201);
    const authorize = await request(t.baseUrl)
      .get('/oauth/authorize')
      .query({
        client_id: registered.body.client_id,
        redirect_uri: provider.redirectUrl,
        response_type: 'code',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: endpoint(serverA).href,
      })
      .expect(302);
    const consentPath =
      new URL(authorize.headers.location!).pathname + new URL(authorize.headers.location!).search;
    const anonymous = await request(t.baseUrl).get(consentPath).expect(303);
    expect(anonymous.headers.location).toMatch(/^\/admin\/login\?next=%2Foauth%2Fconsent/);
    const { cookie } = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const page = await request(t.baseUrl).get(consentPath).set('Cookie', cookie).expect(200);
    expect(page.text).not.toContain(hostile);
    expect(page.text).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
    expect(page.headers['content-security-policy']).toContain(
      "form-action 'self' http://127.0.0.1:53682",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('refuses a code without the right PKCE verifier, and a code used twice', async () => {
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(endpoint(serverA), {
      authProvider: provider,
    });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const landed = await signInAndConsent(provider.authorizationUrl!, ADMIN);
    const exchange = (verifier: string) =>
      request(t.baseUrl)
        .post('/oauth/token')
        .type('form')
        .send({
          grant_type: 'authorization_code',
          code: landed.searchParams.get('code'),
          code_verifier: verifier,
          redirect_uri: provider.redirectUrl,
          client_id: provider.client!.client_id,
        });
    expect((await exchange('x'.repeat(43)).expect(400)).body.error).toBe('invalid_grant');
    const tokens = (await exchange(provider.verifier!).expect(200)).body;
    expect((await exchange(provider.verifier!).expect(400)).body.error).toBe('invalid_grant');
    // The replayed code revoked its grant.
    expect(
      (await postMcp(endpoint(serverA).href, tokens.access_token, initializeRequest())).status,
    ).toBe(401);
  });

  it('answers one authorization request with one code, however often its consent is submitted', async () => {
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(endpoint(serverA), {
      authProvider: provider,
    });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const consent = await openConsent(provider.authorizationUrl!, ADMIN);
    const denied = await consent.submit('deny');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    const landed = await consent.submit('allow');
    expect(landed.searchParams.get('code')).toEqual(expect.any(String));
    const grants = async () =>
      (
        await t.app
          .get(DataSource)
          .query<{ n: number }[]>(
            `SELECT count(*)::int AS n FROM oauth_grant WHERE client_id = $1`,
            [provider.client!.client_id],
          )
      )[0]!.n;
    expect(await grants()).toBe(1);
    await expect(consent.submit('allow')).rejects.toThrow('consent answered 400');
    expect(await grants()).toBe(1);
    await transport.finishAuth(landed.searchParams.get('code')!);
    const client = new Client({ name: 'x', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint(serverA), { authProvider: provider }),
    );
    await client.close();
  });

  it('sends the browser back with access_denied when the user denies', async () => {
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(endpoint(serverA), {
      authProvider: provider,
    });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const landed = await signInAndConsent(provider.authorizationUrl!, ADMIN, 'deny');
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('code')).toBeNull();
  });

  it('lets a member of another team not allow access to a team’s server', async () => {
    const alpha = await createTeam(t, 'OAuth alpha');
    const bravo = await createTeam(t, 'OAuth bravo');
    await t.api().patch(`/api/v1/servers/${serverB}`).send({ teamId: bravo }).expect(200);
    await createUser(t, 'oauth-alpha-member', 'member', [alpha]);
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(endpoint(serverB), {
      authProvider: provider,
    });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const landed = await signInAndConsent(
      provider.authorizationUrl!,
      { username: 'oauth-alpha-member', password: USER_PASSWORD },
      'allow',
    );
    expect(landed.searchParams.get('error')).toBe('access_denied');
  });
  it('says who answered (RFC 9207): iss in the metadata’s promise and in every authorization response', async () => {
    const server = await request(t.baseUrl)
      .get('/.well-known/oauth-authorization-server')
      .expect(200);
    expect(server.body.authorization_response_iss_parameter_supported).toBe(true);
    const provider = new MemoryOAuthProvider();
    const client = (
      await request(t.baseUrl).post('/oauth/register').send(provider.clientMetadata).expect(201)
    ).body.client_id as string;
    const refused = await request(t.baseUrl)
      .get('/oauth/authorize')
      .query({
        client_id: client,
        redirect_uri: provider.redirectUrl,
        response_type: 'code',
        state: 'st-1',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: 'https://evil.example.com/mcp',
      })
      .expect(302);
    const error = new URL(refused.headers.location!);
    expect(`${error.origin}${error.pathname}`).toBe(provider.redirectUrl);
    expect(Object.fromEntries(error.searchParams)).toEqual({
      error: 'invalid_target',
      error_description: 'https://evil.example.com/mcp is not an MCP endpoint of this server',
      state: 'st-1',
      iss: t.baseUrl,
    });
    expect(refused.headers['cache-control']).toBe('no-store');
    // The user's answer, too: a denial as much as a code (the code's is checked in authorizeClient).
    const transport = new StreamableHTTPClientTransport(endpoint(serverA), {
      authProvider: provider,
    });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const denied = await signInAndConsent(provider.authorizationUrl!, ADMIN, 'deny');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('iss')).toBe(t.baseUrl);
  });

  it('answers what it cannot redirect, and what it refuses at the token endpoint, as OAuth errors', async () => {
    const provider = new MemoryOAuthProvider();
    const client = (
      await request(t.baseUrl).post('/oauth/register').send(provider.clientMetadata).expect(201)
    ).body.client_id as string;
    const authorize = (query: Record<string, string>) =>
      request(t.baseUrl)
        .get('/oauth/authorize')
        .query({ response_type: 'code', code_challenge_method: 'S256', ...query });
    // Unknown client or unregistered redirect URI: shown, never sent to the URI.
    const unknown = await authorize({
      client_id: '5f0c6c2e-0000-4000-8000-000000000000',
      redirect_uri: provider.redirectUrl,
    }).expect(400);
    expect(unknown.body).toEqual({
      error: 'invalid_client',
      error_description: 'Invalid client_id',
    });
    expect(unknown.headers['cache-control']).toBe('no-store');
    const elsewhere = await authorize({
      client_id: client,
      redirect_uri: 'https://evil.example.com/cb',
    }).expect(400);
    expect(elsewhere.body.error).toBe('invalid_request');
    expect(elsewhere.headers.location).toBeUndefined();

    const token = (form: Record<string, string>) =>
      request(t.baseUrl).post('/oauth/token').type('form').send(form);
    const grant = await token({ grant_type: 'client_credentials', client_id: client }).expect(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    expect(grant.headers['cache-control']).toBe('no-store');
    expect((await token({ grant_type: 'refresh_token' }).expect(400)).body.error).toBe(
      'invalid_request',
    );
    const get = await request(t.baseUrl).get('/oauth/token').expect(405);
    expect(get.headers.allow).toBe('POST');
    const preflight = await request(t.baseUrl)
      .options('/oauth/token')
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it('registers confidential clients with a secret they must then present', async () => {
    const registered = (
      await request(t.baseUrl)
        .post('/oauth/register')
        .send({
          client_name: 'Web client',
          redirect_uris: ['https://app.example.com/cb'],
          token_endpoint_auth_method: 'client_secret_post',
          application_type: 'web',
        })
        .expect(201)
    ).body;
    expect(registered).toMatchObject({
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      client_secret_expires_at: expect.any(Number),
      application_type: 'web',
    });
    const revoke = (form: Record<string, string>) =>
      request(t.baseUrl)
        .post('/oauth/revoke')
        .type('form')
        .send({ token: 'unknown', client_id: registered.client_id, ...form });
    expect((await revoke({}).expect(400)).body).toEqual({
      error: 'invalid_client',
      error_description: 'Client secret is required',
    });
    expect((await revoke({ client_secret: 'x'.repeat(64) }).expect(400)).body.error).toBe(
      'invalid_client',
    );
    // RFC 7009 §2.2: an unknown token is no error.
    expect((await revoke({ client_secret: registered.client_secret }).expect(200)).body).toEqual(
      {},
    );
  });

  it('keeps a native client’s application_type, and refuses one that is neither web nor native', async () => {
    const provider = new MemoryOAuthProvider();
    const native = await request(t.baseUrl)
      .post('/oauth/register')
      .send({ ...provider.clientMetadata, application_type: 'native' })
      .expect(201);
    expect(native.body.application_type).toBe('native');
    expect(native.headers['cache-control']).toBe('no-store');
    const desktop = await request(t.baseUrl)
      .post('/oauth/register')
      .send({ ...provider.clientMetadata, application_type: 'desktop' })
      .expect(400);
    expect(desktop.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'application_type must be web or native',
    });
    const fragment = await request(t.baseUrl)
      .post('/oauth/register')
      .send({ ...provider.clientMetadata, redirect_uris: ['https://app.example.com/cb#x'] })
      .expect(400);
    expect(fragment.body.error).toBe('invalid_redirect_uri');
  });
});
