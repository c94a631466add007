import { type AddressInfo, createServer, type Socket } from 'node:net';
import { GatewayWatchers } from '../../src/sync/gateway-watchers';
import { startTestApp, type TestApp, type TestAppOptions } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

describe('start-up with an upstream that never answers', () => {
  const sockets = new Set<Socket>();
  let requests = 0;
  const silent = createServer((socket) => {
    sockets.add(socket);
    // fetch may reuse a kept-alive connection, so what counts is what arrives, not new sockets.
    socket.on('data', () => (requests += 1));
  });
  let database: TestDatabase;
  let options: TestAppOptions;
  let t: TestApp | undefined;

  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    // Two app instances one after the other on one database: the second finds the gateway.
    database = await createTestDatabase({ shared: true });
    options = { database, env: { UPSTREAM_TIMEOUT_MS: '30000' } };
  });

  afterAll(async () => {
    await t?.close();
    for (const socket of sockets) socket.destroy();
    silent.close();
    await database.drop();
  });

  it('starts and serves the API at once, while watching the silent upstream in the background', async () => {
    const first = await startTestApp({
      ...options,
      env: { ...options.env, UPSTREAM_TIMEOUT_MS: '500' },
    });
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const created = await first
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Silent', url })
      .expect(201);
    await first.close();
    requests = 0;

    const started = Date.now();
    t = await startTestApp(options);
    const listed = await t.api().get('/api/v1/gateways').expect(200);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(listed.body.items.map((gateway: { id: string }) => gateway.id)).toEqual([
      created.body.id,
    ]);
    await waitFor(
      () => t!.app.get(GatewayWatchers).watchedGatewayIds.includes(created.body.id),
      'the new instance to watch the gateway',
    );
    await waitFor(() => requests > 0, 'the watch to be asking the silent upstream');
    await t.api().get('/readyz').expect(200);
  });
});
