import { createServer, type Server } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { type UpstreamSettings } from '../../config/slices/upstream.settings';
import { UpstreamPools } from './upstream-pools.service';

/** Node's and uvicorn's idle limit, which an upstream that sends no Keep-Alive hint applies. */
const COMMON_SERVER_IDLE_MS = 5000;

describe('UpstreamPools', () => {
  let server: Server;
  let pools: UpstreamPools;
  const closedAt: number[] = [];

  beforeAll(async () => {
    // Answers as an event stream does (its own Connection header, so no Keep-Alive hint), and
    // never closes an idle connection itself: only the client's pool can.
    server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
      request.resume();
      response.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
      response.end('data: {}\n\n');
    });
    server.on('connection', (socket: Socket) =>
      socket.on('close', () => closedAt.push(Date.now())),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pools = new UpstreamPools({
      upstreamResilience: { maxConcurrent: 4 },
    } as unknown as UpstreamSettings);
  });

  afterAll(async () => {
    await pools.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('closes an idle connection before an upstream with the common 5 s idle limit would', async () => {
    const { port } = server.address() as AddressInfo;
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const response = await pools.for('gateway-1', url).requests.request({
      method: 'POST',
      path: url.pathname,
      body: '{}',
    });
    await response.body.text();
    const answeredAt = Date.now();

    // Reusing a connection the upstream closes at that moment resets the call sent on it.
    const closed = await new Promise<number>((resolve, reject) => {
      const poll = setInterval(() => {
        if (closedAt.length > 0) finish(() => resolve(closedAt[0]! - answeredAt));
      }, 50);
      const limit = setTimeout(
        () => finish(() => reject(new Error('the idle connection was still open'))),
        COMMON_SERVER_IDLE_MS,
      );
      const finish = (settle: () => void) => {
        clearInterval(poll);
        clearTimeout(limit);
        settle();
      };
    });
    expect(closed).toBeLessThan(COMMON_SERVER_IDLE_MS);
  });
});
