import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import request from 'supertest';
import { writeEndlessly } from '../fixtures/endless-body';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import {
  GENERIC_AUDIENCE,
  GENERIC_RESOURCE,
  SHORT_LIVED_RESOURCE,
  startTestIdp,
  type TestIdp,
} from '../fixtures/test-idp';
import { connectClient, initializeRequest, postMcp } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** A token Portico must refuse: signed by a key of its own making, under the provider's name. */
async function forged(issuer: string, audience: string): Promise<string> {
  const jose = await import('jose');
  const { privateKey } = await jose.generateKeyPair('RS256');
  return new jose.SignJWT({ groups: ['portico-admins'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'forged' })
    .setIssuer(issuer)
    .setSubject('ci-admin')
    .setAudience(audience)
    .setExpirationTime('10m')
    .sign(privateKey);
}

describe('access tokens of an external OpenID Connect provider', () => {
  let idp: TestIdp;
  let other: TestIdp;
  let t: TestApp;
  let upstream: UpstreamFixture;
  let platformServer: string;
  let otherServer: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    other = await startTestIdp();
    upstream = await startUpstream({ tools: [echoTool('hello', 'up')] });
    t = await startTestApp({
      publicUrl: true,
      env: {
        OIDC_ISSUER: idp.issuer,
        OIDC_AUDIENCE: GENERIC_AUDIENCE,
        OIDC_ROLE_MAP: 'portico-admins=admin,portico-operators=operator,staff=member',
        OIDC_TEAM_MAP: 'platform=Platform',
        OIDC_JWKS_CACHE_SECONDS: '1',
      },
    });
    const gateway = (
      await t.api().post('/api/v1/gateways').send({ name: 'Up', url: upstream.url }).expect(201)
    ).body;
    const toolIds = (
      await t.api().get(`/api/v1/tools?gatewayId=${gateway.id}`).expect(200)
    ).body.items.map((tool: { id: string }) => tool.id);
    const platform = (await t.api().get('/api/v1/teams').expect(200)).body.items.find(
      (team: { name: string }) => team.name === 'Platform',
    );
    platformServer = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Platform', toolIds, teamId: platform.id })
        .expect(201)
    ).body.id;
    otherServer = (await t.api().post('/api/v1/teams').send({ name: 'Other' }).expect(201)).body.id;
    otherServer = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Other', toolIds, teamId: otherServer })
        .expect(201)
    ).body.id;
  });

  afterAll(async () => {
    await t.close();
    await upstream.close();
    await other.close();
    await idp.close();
  });

  const endpoint = (serverId?: string) =>
    serverId ? `${t.baseUrl}/servers/${serverId}/mcp` : `${t.baseUrl}/mcp`;

  it('lists the provider among the authorization servers of every endpoint', async () => {
    const metadata = await request(t.baseUrl)
      .get('/.well-known/oauth-protected-resource/mcp')
      .expect(200);
    expect(metadata.body.authorization_servers).toEqual([t.baseUrl, idp.issuer]);
  });

  it('takes a token issued for an endpoint on that endpoint, with the groups’ role and teams', async () => {
    const token = await idp.machineToken('ci-platform', endpoint(platformServer));
    const client = await connectClient(t.baseUrl, {
      token,
      path: `/servers/${platformServer}/mcp`,
    });
    const result = await client.callTool({ name: 'up-hello', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'up:hello' }]);
    await client.close();
    // Bound to that endpoint (RFC 8707): not another server, not the REST API.
    expect((await postMcp(endpoint(otherServer), token, initializeRequest())).status).toBe(401);
    await request(t.baseUrl)
      .get('/api/v1/servers')
      .set('Authorization', `Bearer ${token}`)
      .expect(403);
  });

  it('takes a token for the configured audience on /mcp, for a mapped admin only', async () => {
    const admin = await idp.machineToken('ci-admin', GENERIC_RESOURCE);
    const client = await connectClient(t.baseUrl, { token: admin });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['up-hello']);
    await client.close();
    await request(t.baseUrl)
      .get('/api/v1/users')
      .set('Authorization', `Bearer ${admin}`)
      .expect(200);
    const member = await idp.machineToken('ci-platform', GENERIC_RESOURCE);
    expect((await postMcp(endpoint(), member, initializeRequest())).status).toBe(403);
    // Another team's server is as missing to them as one that does not exist.
    expect((await postMcp(endpoint(otherServer), member, initializeRequest())).status).toBe(404);
    const ok = await postMcp(endpoint(platformServer), member, initializeRequest());
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('refuses a token for another audience, from another issuer, or signed by a stranger', async () => {
    const wrongAudience = await idp.machineToken('ci-admin', 'https://elsewhere.example.com/api');
    const otherIssuer = await other.machineToken('ci-admin', GENERIC_RESOURCE);
    for (const token of [wrongAudience, otherIssuer, await forged(idp.issuer, GENERIC_AUDIENCE)]) {
      const refused = await postMcp(endpoint(), token, initializeRequest());
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('refuses an expired token', async () => {
    const token = await idp.machineToken('ci-admin', SHORT_LIVED_RESOURCE);
    await request(t.baseUrl)
      .get('/api/v1/users')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    await delay(3500);
    const refused = await postMcp(endpoint(), token, initializeRequest());
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/exp claim timestamp check failed/);
  });

  it('refuses a token signed with a key the provider has rotated out, and takes the new key', async () => {
    const old = await idp.machineToken('ci-admin', GENERIC_RESOURCE);
    expect(
      (await request(t.baseUrl).get('/api/v1/users').set('Authorization', `Bearer ${old}`)).status,
    ).toBe(200);
    const port = idp.port;
    await idp.close();
    idp = await startTestIdp({ port });
    const rotated = await idp.machineToken('ci-admin', GENERIC_RESOURCE);
    // Past OIDC_JWKS_CACHE_SECONDS (and jose's cooldown, never longer), the key set is fetched
    // again: the token with the new key's id is taken, the old key's is refused.
    await delay(1100);
    await request(t.baseUrl)
      .get('/api/v1/users')
      .set('Authorization', `Bearer ${rotated}`)
      .expect(200);
    const refused = await request(t.baseUrl)
      .get('/api/v1/users')
      .set('Authorization', `Bearer ${old}`);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/refused/);
  });
});

describe('an identity provider that answers without end', () => {
  /** Which of its documents never ends: the discovery document, then the key set. */
  let endless: 'discovery' | 'jwks' = 'discovery';
  let server: Server;
  let issuer: string;
  let t: TestApp;

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const discovery = request.url === '/.well-known/openid-configuration';
      if (discovery && endless === 'jwks') {
        response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
        return;
      }
      response.write(discovery ? `{"issuer":"${issuer}","x":"` : '{"keys":[],"x":"');
      writeEndlessly(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ env: { OIDC_ISSUER: issuer, OIDC_AUDIENCE: GENERIC_AUDIENCE } });
  });

  afterAll(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads its documents only to a bound, refuses the token, and keeps serving', async () => {
    const token = await forged(issuer, GENERIC_AUDIENCE);
    const started = Date.now();
    const noDiscovery = await request(t.baseUrl)
      .get('/api/v1/users')
      .set('Authorization', `Bearer ${token}`)
      .expect(401);
    expect(noDiscovery.body.detail).toBe('The identity provider cannot be reached.');
    endless = 'jwks';
    const noKeys = await request(t.baseUrl)
      .get('/api/v1/users')
      .set('Authorization', `Bearer ${token}`)
      .expect(401);
    expect(noKeys.body.detail).toMatch(/The identity provider's token was refused: .*JSON/);
    // Neither waited for a timeout (10 s for discovery, 5 s for the key set).
    expect(Date.now() - started).toBeLessThan(5000);
    await t.api().get('/api/v1/users').expect(200);
  });
});
