import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { STS_AUDIENCE, STS_CLIENT, STS_SCOPE, TokenService } from '../test/fixtures/token-service';
import { startTestApp, type TestApp } from '../test/support/test-app';
import { startModernUpstream } from './modern-upstream';

const CACHED_CALLS = 300;
const FIRST_CALLS = 30;

export interface TokenExchangeResult {
  /** Median of a call through a gateway with a fixed bearer token: the baseline. */
  bearerMedianMs: number;
  /** Median of a call whose exchanged token is held (the cache hit). */
  cachedMedianMs: number;
  /** Median of each new caller's first call (the exchange at the token service included). */
  firstMedianMs: number;
  /** Median of one exchange asked of the loopback token service directly. */
  exchangeAloneMedianMs: number;
}

const median = (samples: number[]) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/**
 * An identity provider for the bench: discovery and a JWKS, and access tokens for any subject,
 * so that each first call is a new caller's.
 */
async function benchIdp(): Promise<{
  issuer: string;
  token(sub: string): Promise<string>;
  http: Server;
}> {
  const jose = await import('jose');
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const http = createServer((request, response) => {
    const body = request.url === '/jwks' ? { keys: [jwk] } : { issuer, jwks_uri: `${issuer}/jwks` };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    issuer,
    http,
    token: (sub) =>
      new jose.SignJWT({ groups: ['bench-admins'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience('portico')
        .setExpirationTime('10m')
        .sign(privateKey),
  };
}

async function modernClientOf(t: TestApp, token: string): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/**
 * The latency token exchange adds to a tools/call (a 2026-07-28 SDK client, a 2026-07-28
 * upstream, embedded database), one call at a time: a caller's first call, which waits for the
 * exchange at a loopback token service, and later calls, which use the exchanged token Portico
 * holds; against the same call through a gateway with a fixed bearer token.
 */
export async function tokenExchangeLatency(): Promise<TokenExchangeResult> {
  const idp = await benchIdp();
  const bearerUrl = await startModernUpstream(['fixed']);
  const upstreamUrl = await startModernUpstream(['exchanged']);
  const sts = await new TokenService({ resource: upstreamUrl }).start();
  const t = await startTestApp({
    env: { OIDC_ISSUER: idp.issuer, OIDC_AUDIENCE: 'portico', OIDC_ROLE_MAP: 'bench-admins=admin' },
  });
  const clients: Client[] = [];
  try {
    await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Fixed', url: bearerUrl, auth: { type: 'bearer', token: 'fixed' } })
      .expect(201);
    await t
      .api()
      .post('/api/v1/gateways')
      .send({
        name: 'Exchanged',
        url: upstreamUrl,
        auth: {
          type: 'token-exchange',
          tokenUrl: sts.url,
          clientId: STS_CLIENT.id,
          clientSecret: STS_CLIENT.secret,
          audience: STS_AUDIENCE,
          resource: upstreamUrl,
          scope: STS_SCOPE,
          actor: true,
        },
      })
      .expect(201);
    const timed = async (call: () => Promise<unknown>) => {
      const started = performance.now();
      await call();
      return performance.now() - started;
    };
    const token = await idp.token('steady');
    sts.subjects.set(token, 'steady');
    const steady = await modernClientOf(t, token);
    clients.push(steady);
    const bearer: number[] = [];
    const cached: number[] = [];
    for (let i = 0; i < 50; i++) {
      await steady.callTool({ name: 'fixed-fixed', arguments: {} });
      await steady.callTool({ name: 'exchanged-exchanged', arguments: {} });
    }
    for (let i = 0; i < CACHED_CALLS; i++) {
      bearer.push(await timed(() => steady.callTool({ name: 'fixed-fixed', arguments: {} })));
      cached.push(
        await timed(() => steady.callTool({ name: 'exchanged-exchanged', arguments: {} })),
      );
    }
    const first: number[] = [];
    for (let i = 0; i < FIRST_CALLS; i++) {
      const caller = await idp.token(`caller-${i}`);
      sts.subjects.set(caller, `caller-${i}`);
      const client = await modernClientOf(t, caller);
      clients.push(client);
      // Authenticated once on a tool of the fixed gateway, so that only the exchange is new.
      await client.callTool({ name: 'fixed-fixed', arguments: {} });
      first.push(
        await timed(() => client.callTool({ name: 'exchanged-exchanged', arguments: {} })),
      );
    }
    const alone: number[] = [];
    for (let i = 0; i < FIRST_CALLS; i++)
      alone.push(
        await timed(() =>
          fetch(sts.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              authorization: `Basic ${Buffer.from(`${STS_CLIENT.id}:${encodeURIComponent(STS_CLIENT.secret).replace(/%20/g, '+')}`).toString('base64')}`,
            },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              audience: STS_AUDIENCE,
              resource: upstreamUrl,
              scope: STS_SCOPE,
            }),
          }).then((response) => response.json()),
        ),
      );
    return {
      bearerMedianMs: median(bearer),
      cachedMedianMs: median(cached),
      firstMedianMs: median(first),
      exchangeAloneMedianMs: median(alone),
    };
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
    await sts.close();
    idp.http.close();
  }
}
