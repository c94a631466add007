import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { HttpChannel } from './http-channel';
import { type BearerSource } from './channel';
import { UpstreamAuthorizationRequired, UpstreamFailure } from '../upstream-error';

/** An upstream on loopback that answers each POST as `answer` says, and records the tokens. */
async function upstreamAnswering(
  answer: (request: IncomingMessage) => { status: number; headers?: Record<string, string> },
): Promise<{ server: Server; url: URL; tokens: string[] }> {
  const tokens: string[] = [];
  const server = createServer((request, response) => {
    tokens.push(request.headers.authorization ?? '');
    request.resume();
    request.on('end', () => {
      const { status, headers } = answer(request);
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(
        status === 200 ? JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } }) : '{}',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: new URL(`http://127.0.0.1:${port}/mcp`), tokens };
}

describe('HttpChannel with OAuth', () => {
  const agent = new Agent();
  let server: Server | undefined;

  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );
  afterAll(() => agent.close());

  function channel(url: URL, bearer: BearerSource): HttpChannel {
    return new HttpChannel({
      url,
      headers: {},
      dispatchers: { requests: agent, streams: agent },
      bearer,
      limits: { maxBytes: 1024 * 1024, maxDepth: 64 },
      modernVersion: '2026-07-28',
    });
  }

  const request = (under: HttpChannel) =>
    under.request(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { signal: new AbortController().signal, onMessage: () => undefined },
    );

  it('turns a 403 insufficient_scope into what the bearer says, with the scope asked for', async () => {
    const upstream = await upstreamAnswering(() => ({
      status: 403,
      headers: {
        'www-authenticate':
          'Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="http://127.0.0.1/prm"',
      },
    }));
    server = upstream.server;
    const asked: (string | undefined)[] = [];
    const refusal = new UpstreamAuthorizationRequired('connect again', null);
    const failure = await request(
      channel(upstream.url, {
        token: () => Promise.resolve('narrow'),
        tooNarrow: (scope) => {
          asked.push(scope);
          return Promise.resolve(refusal);
        },
      }),
    ).catch((error: unknown) => error);
    expect(failure).toBe(refusal);
    expect(asked).toEqual(['mcp:write']);
    expect(upstream.tokens).toEqual(['Bearer narrow']);
  });

  it('leaves any other 403 an HTTP failure, and sends a refused token once more after refreshing', async () => {
    let calls = 0;
    const upstream = await upstreamAnswering(() =>
      ++calls === 1 ? { status: 401 } : { status: 403, headers: { 'www-authenticate': 'Bearer' } },
    );
    server = upstream.server;
    const stale: (string | undefined)[] = [];
    const failure = await request(
      channel(upstream.url, {
        token: (refused) => {
          stale.push(refused);
          return Promise.resolve(refused ? 'fresh' : 'old');
        },
        tooNarrow: () => Promise.reject(new Error('not a scope refusal')),
      }),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).toMatchObject({ kind: 'http', status: 403 });
    expect(stale).toEqual([undefined, 'old']);
    expect(upstream.tokens).toEqual(['Bearer old', 'Bearer fresh']);
  });
});
