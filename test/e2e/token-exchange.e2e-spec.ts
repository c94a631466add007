import request from 'supertest';
import { type Client as ModernClient } from '@modelcontextprotocol/client';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import {
  GENERIC_AUDIENCE,
  GENERIC_RESOURCE,
  startTestIdp,
  type TestIdp,
} from '../fixtures/test-idp';
import { STS_AUDIENCE, STS_CLIENT, STS_SCOPE, TokenService } from '../fixtures/token-service';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectClient } from '../support/mcp-client';
import { MemoryOAuthProvider, signInAndConsent } from '../support/oauth-client';
import { modernClient } from '../support/modern-client';
import { onPostgres } from '../support/test-database';
import { ADMIN_PASSWORD, startReplica, startTestApp, type TestApp } from '../support/test-app';

const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

/** The text of a tool result. */
const textOf = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

/** The message of a failed call, whichever SDK threw it. */
async function failureOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the call succeeded');
}

/**
 * Token exchange towards an upstream (RFC 8693), end to end: callers with their identity
 * provider's tokens, through real SDK clients of both eras, on two replicas where the database is
 * PostgreSQL (one on the embedded database); a token service on loopback that checks every field;
 * an upstream that trusts only what that service issued.
 */
describe(`token exchange towards upstreams (${onPostgres ? 'two replicas on PostgreSQL' : 'embedded'})`, () => {
  let idp: TestIdp;
  let sts: TokenService;
  let upstream: UpstreamFixture;
  let a: TestApp;
  let b: TestApp;
  let gatewayId: string;
  /** Every Authorization header the upstream received. */
  const seenUpstream: string[] = [];
  const callers: Record<'admin' | 'platform', string> = { admin: '', platform: '' };
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    idp = await startTestIdp();
    upstream = await startUpstream({
      name: 'reports',
      authorize: (incoming) => {
        const header = incoming.headers.authorization ?? '';
        seenUpstream.push(header);
        return sts.holderOf(header.replace(/^Bearer /, '')) !== undefined;
      },
      tools: [
        {
          definition: { name: 'whoami', inputSchema: { type: 'object' } },
          handler: (_args, extra) => {
            const header = String(extra.requestInfo?.headers.authorization ?? '');
            return {
              content: [
                { type: 'text', text: `for ${sts.holderOf(header.replace(/^Bearer /, ''))}` },
              ],
            };
          },
        },
      ],
    });
    sts = await new TokenService({ resource: upstream.url }).start();
    a = await startTestApp({
      publicUrl: true,
      env: {
        OIDC_ISSUER: idp.issuer,
        OIDC_AUDIENCE: GENERIC_AUDIENCE,
        OIDC_ROLE_MAP: 'portico-admins=admin,staff=admin',
      },
    });
    b = onPostgres
      ? await startReplica(a, {
          PUBLIC_URL: a.baseUrl,
          OIDC_ISSUER: idp.issuer,
          OIDC_AUDIENCE: GENERIC_AUDIENCE,
          OIDC_ROLE_MAP: 'portico-admins=admin,staff=admin',
        })
      : a;
    callers.admin = await idp.machineToken('ci-admin', GENERIC_RESOURCE);
    sts.subjects.set(callers.admin, 'ci-admin');
  });

  afterAll(async () => {
    for (const client of open) await client.close().catch(() => undefined);
    if (b !== a) await b.close();
    await a.close();
    await upstream.close();
    await sts.close();
    await idp.close();
  });

  it('syncs with Portico’s own token from the token service, and keeps the secret to itself', async () => {
    const created = await a
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Reports',
        url: upstream.url,
        auth: {
          type: 'token-exchange',
          tokenUrl: sts.url,
          clientId: STS_CLIENT.id,
          clientSecret: STS_CLIENT.secret,
          audience: STS_AUDIENCE,
          resource: upstream.url,
          scope: STS_SCOPE,
          actor: true,
        },
      })
      .expect(201);
    gatewayId = created.body.id;
    expect(created.body.authType).toBe('token-exchange');
    expect(created.body.lastSyncReport.added).toEqual(['whoami']);
    const own = sts.requests.find((sent) => sent.form.grant_type === 'client_credentials')!;
    expect(own.form).toEqual({
      grant_type: 'client_credentials',
      audience: STS_AUDIENCE,
      resource: upstream.url,
      scope: STS_SCOPE,
    });
    const shown = JSON.stringify(
      (await b.api().get(`/api/v1/gateways/${gatewayId}`).expect(200)).body,
    );
    expect(shown).not.toContain(STS_CLIENT.secret);
    const exported = (await a.api().get('/api/v1/config').expect(200)).body;
    expect(JSON.stringify(exported)).not.toContain(STS_CLIENT.secret);
    expect(exported.gateways[0].auth).toEqual({
      type: 'token-exchange',
      tokenUrl: sts.url,
      dialect: 'rfc8693',
      clientId: STS_CLIENT.id,
      clientSecret: { fromEnv: 'REPORTS_CLIENT_SECRET' },
      clientAuth: 'client_secret_basic',
      audience: STS_AUDIENCE,
      resource: upstream.url,
      scope: STS_SCOPE,
      actor: true,
    });
  });

  it('calls for a 2025 session with a token exchanged for the caller’s, then from the cache', async () => {
    const client: Client = await connectClient(a.baseUrl, { token: callers.admin });
    open.push(client);
    expect(textOf(await client.callTool({ name: 'reports-whoami', arguments: {} }))).toBe(
      'for ci-admin',
    );
    const exchange = sts.requests.find((sent) => sent.form.grant_type !== 'client_credentials')!;
    expect(exchange.form).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: callers.admin,
      subject_token_type: ACCESS_TOKEN,
      actor_token: (
        sts.requests.find((sent) => sent.form.grant_type === 'client_credentials')!.outcome as {
          issued: string;
        }
      ).issued,
      actor_token_type: ACCESS_TOKEN,
      audience: STS_AUDIENCE,
      resource: upstream.url,
      scope: STS_SCOPE,
    });
    expect(sts.exchangesFor('ci-admin')).toBe(1);
    for (let i = 0; i < 3; i++)
      expect(textOf(await client.callTool({ name: 'reports-whoami', arguments: {} }))).toBe(
        'for ci-admin',
      );
    expect(sts.exchangesFor('ci-admin')).toBe(1);
    expect(seenUpstream.some((header) => header.includes(callers.admin))).toBe(false);
  });

  it('turns the token service’s refusal into a clear error that never shows the caller’s token', async () => {
    callers.platform = await idp.machineToken('ci-platform', GENERIC_RESOURCE);
    sts.subjects.set(callers.platform, 'ci-platform');
    sts.refused.add('ci-platform');
    const client: ModernClient = await modernClient(b, { token: callers.platform });
    const message = await failureOf(client.callTool({ name: 'reports-whoami', arguments: {} }));
    await client.close();
    expect(message).toMatch(/token service refused to exchange the token: invalid_grant/);
    expect(message).not.toContain(callers.platform);
    sts.refused.delete('ci-platform');
    const metrics = await b.api().get('/metrics').expect(200);
    // The client's discover already opened its connections (to learn the upstreams' extensions).
    const refused = sts.requests.filter((sent) => 'refused' in sent.outcome).length;
    expect(refused).toBeGreaterThan(0);
    expect(metrics.text).toContain(
      `portico_upstream_token_exchanges_total{kind="exchange",outcome="refused"} ${refused}\n`,
    );
    expect(metrics.text).not.toContain(callers.platform);
  });

  it('calls for a 2026-07-28 client on the other replica, concurrent first calls sharing one exchange', async () => {
    sts.delayMs = 200;
    const client: ModernClient = await modernClient(b, { token: callers.platform });
    open.push(client);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.callTool({ name: 'reports-whoami', arguments: {} })),
    );
    sts.delayMs = 0;
    expect(results.map(textOf)).toEqual(Array(5).fill('for ci-platform'));
    expect(sts.exchangesFor('ci-platform')).toBe(1);
    expect(textOf(await client.callTool({ name: 'reports-whoami', arguments: {} }))).toBe(
      'for ci-platform',
    );
    expect(sts.exchangesFor('ci-platform')).toBe(1);
    expect(seenUpstream.some((header) => header.includes(callers.platform))).toBe(false);
  });

  it('invokes over REST with the caller’s exchanged token', async () => {
    const tool = (await a.api().get(`/api/v1/tools?gatewayId=${gatewayId}`).expect(200)).body
      .items[0];
    const invoked = await request(b.baseUrl)
      .post(`/api/v1/tools/${tool.id}/invoke`)
      .set('Authorization', `Bearer ${callers.admin}`)
      .send({ arguments: {} })
      .expect(200);
    expect(textOf(invoked.body)).toBe('for ci-admin');
    // Each replica holds the tokens it was issued, in its own memory.
    expect(sts.exchangesFor('ci-admin')).toBe(b === a ? 1 : 2);
  });

  it('serves a 2025 session whose requests alternate between the replicas', async () => {
    let index = 0;
    const client: Client = await connectClient(a.baseUrl, {
      token: callers.platform,
      fetch: (input, init) => {
        const target = index++ % 2 === 0 ? a : b;
        const url = new URL(String(input instanceof Request ? input.url : input));
        return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
      },
    });
    open.push(client);
    for (let i = 0; i < 4; i++)
      expect(textOf(await client.callTool({ name: 'reports-whoami', arguments: {} }))).toBe(
        'for ci-platform',
      );
    expect(sts.exchangesFor('ci-platform')).toBe(b === a ? 1 : 2);
  });

  it('exchanges an access token of Portico’s own authorization server', async () => {
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', a.baseUrl), {
      authProvider: provider,
    });
    await expect(
      new SdkClient({ name: 'oauth', version: '1' }).connect(transport),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const landed = await signInAndConsent(provider.authorizationUrl!, {
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
    await transport.finishAuth(landed.searchParams.get('code')!);
    const porticoToken = provider.saved!.access_token;
    sts.subjects.set(porticoToken, 'admin-via-portico');
    const client = await connectClient(b.baseUrl, { token: porticoToken });
    open.push(client);
    expect(textOf(await client.callTool({ name: 'reports-whoami', arguments: {} }))).toBe(
      'for admin-via-portico',
    );
    expect(seenUpstream.some((header) => header.includes(porticoToken))).toBe(false);
  });

  // After the test above, Portico holds an exchangeable token of the same user (the admin): a
  // login token of that user still exchanges nothing, in a 2025 session or over REST.
  it('refuses a caller whose token no token service knows (a Portico login token), clearly', async () => {
    const client: Client = await connectClient(a.baseUrl, { token: a.token });
    open.push(client);
    const message = await failureOf(client.callTool({ name: 'reports-whoami', arguments: {} }));
    expect(message).toMatch(
      /takes only a token of Portico's authorization server or of the identity provider/,
    );
    expect(message).not.toContain(a.token);
    const tool = (await a.api().get(`/api/v1/tools?gatewayId=${gatewayId}`).expect(200)).body
      .items[0];
    const invoked = await a
      .api()
      .post(`/api/v1/tools/${tool.id}/invoke`)
      .send({ arguments: {} })
      .expect(502);
    expect(invoked.body.detail).toMatch(/or of the identity provider/);
    expect(JSON.stringify(invoked.body)).not.toContain(a.token);
    expect(seenUpstream.some((header) => header.includes(a.token))).toBe(false);
  });
});
