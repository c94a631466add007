import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { UpstreamFailure, UpstreamTimeout } from '../upstream-error';
import { OpenApiConnection } from './openapi-connection';
import { buildModel } from './openapi-model';

/** One GET operation, `getItem`, on /items/{id}. */
const DESCRIPTION = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Items', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

describe('an OpenAPI call that gets no answer', () => {
  let server: Server;
  let baseUrl: URL;
  const dispatcher = new Agent();
  beforeAll(async () => {
    // Takes every request and answers none.
    server = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await dispatcher.close();
  });

  const connection = async () => {
    const model = await buildModel(DESCRIPTION, { methods: ['GET'] }, 64);
    return OpenApiConnection.open({
      baseUrl,
      dispatcher,
      headers: {},
      timeoutMs: 200,
      secrets: [],
      maxResponseBytes: 1024,
      maxDepth: 64,
      model: () => Promise.resolve(model),
    });
  };
  const call = { name: 'getItem', arguments: { id: '1' } };

  it('ends with a timeout after its timeout', async () => {
    const opened = await connection();
    const started = Date.now();
    await expect(opened.request('tools/call', call)).rejects.toBeInstanceOf(UpstreamTimeout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('ends as cancelled when its caller gives up first, and does not time out afterwards', async () => {
    const caller = new AbortController();
    const pending = (await connection()).request('tools/call', call, {
      signal: caller.signal,
      timeoutMs: 10_000,
    });
    setTimeout(() => caller.abort('the client went away'), 50);
    const failure: unknown = await pending.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).not.toBeInstanceOf(UpstreamTimeout);
    expect((failure as UpstreamFailure).kind).toBe('cancelled');
  });

  it('is cancelled at once when its caller has given up already', async () => {
    const opened = await connection();
    const caller = new AbortController();
    caller.abort('gone');
    const started = Date.now();
    await expect(
      opened.request('tools/call', call, { signal: caller.signal, timeoutMs: 20_000 }),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    // Far below its timeout: it did not wait for it (a loaded machine takes a few ms at most).
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
