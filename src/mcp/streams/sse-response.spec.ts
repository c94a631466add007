import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { SseResponse, STREAM_BACKLOG_BYTES } from './sse-response';

const MESSAGE = {
  jsonrpc: '2.0' as const,
  method: 'notifications/message',
  params: { data: 'x'.repeat(4096) },
};

describe('SseResponse towards a client that stops reading', () => {
  let server: Server;
  let client: Socket | undefined;
  let opened: Promise<SseResponse>;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    opened = new Promise((resolve) => {
      server = createServer((_request, response) => resolve(new SseResponse(response)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    client?.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    jest.restoreAllMocks();
  });

  /** A client that sends its request and then never reads a byte. */
  function stalledClient(): void {
    client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    client.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
    client.pause();
  }

  it('drops the client once it has left more than the backlog unread, and holds no more', async () => {
    stalledClient();
    const sse = await opened;
    const response = (sse as unknown as { response: { writableLength: number } }).response;
    let written = 0;
    let most = 0;
    while (sse.open && written < 16 * STREAM_BACKLOG_BYTES) {
      sse.message(MESSAGE);
      written += 4096;
      most = Math.max(most, response.writableLength);
    }
    expect(sse.open).toBe(false);
    expect(most).toBeLessThan(STREAM_BACKLOG_BYTES + 16 * 1024);
    const closed = jest.fn();
    sse.onClose(closed);
    expect(closed).toHaveBeenCalled();
  });

  it('sends a message larger than the backlog whole, and what follows it, to a client that reads', async () => {
    client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    client.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const chunks: Buffer[] = [];
    let tail = '';
    const ended = new Promise<void>((resolve) =>
      client!.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        tail = (tail + chunk.toString('latin1')).slice(-64);
        if (tail.includes('"final"}}')) resolve();
      }),
    );
    const sse = await opened;
    sse.message({ ...MESSAGE, params: { data: 'y'.repeat(STREAM_BACKLOG_BYTES + 1024) } });
    sse.message(MESSAGE);
    sse.message({ ...MESSAGE, params: { data: 'final' } });
    await ended;
    expect(sse.open).toBe(true);
    const received = Buffer.concat(chunks).toString();
    expect(received.length).toBeGreaterThan(STREAM_BACKLOG_BYTES + 1024 + 4096);
    expect(received.match(/event: message/g)).toHaveLength(3);
  });
});
