import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { type UpstreamSettings } from '../../config/slices/upstream.settings';
import { UpstreamPools } from './upstream-pools.service';

/** Node's and uvicorn's idle limit, which an upstream that sends no Keep-Alive hint applies. */
const COMMON_SERVER_IDLE_MS = 5000;

describe('UpstreamPools', () => {
  let server: Server;
  let pools: UpstreamPools;

  beforeAll(async () => {
    // Answers as an event stream does (its own Connection header, so no Keep-Alive hint), and
    // never closes an idle connection itself: only the client's pool can.
    server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
      request.resume();
      response.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
      response.end('data: {}\n\n');
    });
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
    const closed = new Promise<number>((resolve) =>
      server.once('connection', (socket) => socket.once('close', () => resolve(Date.now()))),
    );
    const response = await pools.for('gateway-1', url).requests.request({
      method: 'POST',
      path: url.pathname,
      body: '{}',
    });
    await response.body.text();
    const answeredAt = Date.now();

    // A call sent on a connection just as the upstream closes it is reset, and cannot be resent.
    const closedAt = await Promise.race([closed, delay(COMMON_SERVER_IDLE_MS, null)]);
    expect(closedAt).not.toBeNull();
    expect(closedAt! - answeredAt).toBeLessThan(COMMON_SERVER_IDLE_MS);
  });
});
