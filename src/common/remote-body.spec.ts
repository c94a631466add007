import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { writeEndlessly } from '../../test/fixtures/endless-body';
import { waitFor } from '../../test/support/wait-for';
import { BodyTooLarge, boundedFetch, cappedResponse, readBounded } from './remote-body';

describe('bodies read from other servers', () => {
  it('are read to the limit and no further, the rest dropped', async () => {
    const body = Readable.from([Buffer.alloc(600, 97), Buffer.alloc(600, 98)]);
    const read = await readBounded(body, 1000);
    expect(read).toEqual({ text: 'a'.repeat(600) + 'b'.repeat(400), truncated: true });
    expect(body.destroyed).toBe(true);
    expect(await readBounded(Readable.from([Buffer.from('ok')]), 1000)).toEqual({
      text: 'ok',
      truncated: false,
    });
    expect(await readBounded(Readable.from([Buffer.alloc(1000, 99)]), 1000)).toMatchObject({
      truncated: false,
    });
  });

  it('fail to parse once past the cap, and keep status and headers', async () => {
    const big = new Response(JSON.stringify({ a: 'x'.repeat(5000) }), {
      status: 201,
      headers: { 'x-kept': 'yes' },
    });
    const capped = cappedResponse(big, 1000);
    expect(capped.status).toBe(201);
    expect(capped.headers.get('x-kept')).toBe('yes');
    await expect(capped.json()).rejects.toThrow(BodyTooLarge);
    await expect(cappedResponse(new Response('{"a":1}'), 1000).json()).resolves.toEqual({ a: 1 });
    const empty = new Response(null, { status: 204 });
    expect(cappedResponse(empty, 10)).toBe(empty);
  });

  describe('through a bounded fetch', () => {
    let server: Server;
    let url: string;
    let stopped = false;

    beforeAll(async () => {
      // Answers /endless with a body that never ends, /small with a little JSON.
      server = createServer((request, response) => {
        if (request.url === '/small') {
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.on('close', () => (stopped = true));
        writeEndlessly(response, Buffer.alloc(64 * 1024, 32));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('stop reading an endless answer at the cap and drop its connection', async () => {
      const bounded = boundedFetch(1024 * 1024);
      const response = await bounded(`${url}/endless`);
      expect(response.url).toBe(`${url}/endless`);
      await expect(response.text()).rejects.toThrow(/larger than 1048576 bytes/);
      await waitFor(() => stopped, 'the server to see its answer dropped');
      await expect((await bounded(`${url}/small`)).json()).resolves.toEqual({ ok: true });
    });
  });
});
