import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { shutDownGracefully } from '../../src/shutdown';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A rolling restart of one replica of two under continuous MCP load, as Kubernetes does it: the
 * stopping replica is taken out of the load balancer as soon as it reports itself not ready, and
 * the new one is put in once it is ready. No call and no session may be lost.
 */
describeOnPostgres('a rolling restart under load', () => {
  let upstream: UpstreamFixture;
  let stays: TestApp;
  let restarted: TestApp;
  let replacement: TestApp | undefined;
  /** The replicas the load balancer sends requests to, in turn. */
  const ready: TestApp[] = [];
  let turn = 0;

  const viaBalancer = (input: string | URL | Request, init?: RequestInit) => {
    const target = ready[turn++ % ready.length]!;
    const url = new URL(String(input instanceof Request ? input.url : input));
    return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
  };

  beforeAll(async () => {
    upstream = await startUpstream({
      name: 'slow',
      tools: [
        {
          definition: { name: 'work', inputSchema: { type: 'object' } },
          handler: async (args) => {
            await sleep(30);
            return { content: [{ type: 'text', text: `done ${String(args.n)}` }] };
          },
        },
      ],
    });
    stays = await startTestApp();
    restarted = await startReplica(stays);
    await stays
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'slow', url: upstream.url })
      .expect(201);
    ready.push(stays, restarted);
  });

  afterAll(async () => {
    await replacement?.close();
    await stays.close();
    await upstream.close();
  });

  it('loses no call and no session', async () => {
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = new Client({ name: 'under-load', version: '1' });
        const transport = new StreamableHTTPClientTransport(new URL('/mcp', stays.baseUrl), {
          requestInit: { headers: { Authorization: `Bearer ${stays.token}` } },
          fetch: viaBalancer,
        });
        await client.connect(transport);
        return { client, transport, sessionId: transport.sessionId };
      }),
    );
    let running = true;
    const failures: unknown[] = [];
    let calls = 0;
    const load = clients.map(async ({ client }) => {
      while (running) {
        const n = calls++;
        try {
          const result = await client.callTool({ name: 'slow-work', arguments: { n } });
          expect(result.content).toEqual([{ type: 'text', text: `done ${n}` }]);
        } catch (error) {
          failures.push(error);
        }
      }
    });

    await sleep(1000);
    ready.splice(ready.indexOf(restarted), 1);
    const stopped = shutDownGracefully(restarted.app);
    await sleep(500);
    await stopped;
    replacement = await startReplica(stays);
    ready.push(replacement);
    const before = calls;
    await sleep(1500);
    running = false;
    await Promise.all(load);

    expect(failures).toEqual([]);
    expect(calls - before).toBeGreaterThan(10);
    for (const { client, transport, sessionId } of clients) {
      expect(transport.sessionId).toBe(sessionId);
      await client.ping();
      await client.close();
    }
  });
});
