import { type Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { readChunks } from '../../common/read-body';
import { sendMcpError } from './mcp-exception.filter';

/** A logger that keeps what was logged, by level. */
function keptLogger() {
  const logged: Record<'error' | 'debug', string[]> = { error: [], debug: [] };
  const logger = {
    error: (message: string) => logged.error.push(message),
    debug: (message: string) => logged.debug.push(message),
  } as unknown as Logger;
  return { logged, logger };
}

describe('sendMcpError', () => {
  let server: Server;
  let received: Promise<void>;
  let failed: Promise<void>;
  const { logged, logger } = keptLogger();

  beforeAll(async () => {
    let reached: () => void;
    let handled: () => void;
    received = new Promise((resolve) => (reached = resolve));
    failed = new Promise((resolve) => (handled = resolve));
    server = createServer((request, response) => {
      reached();
      // As the MCP endpoints read a body: the client leaves halfway.
      readChunks(request, () => undefined).then(
        () => response.end(),
        (error: unknown) => {
          sendMcpError(response, error, logger);
          handled();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('logs a request whose connection is gone as such, not as an internal error', async () => {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.write('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"jsonrpc"');
    // The client leaves only once the server reads its request: a fixed wait lost that race under load.
    await received;
    socket.destroy();
    await failed;
    expect(logged.error).toEqual([]);
    expect(logged.debug).toEqual([expect.stringMatching(/^MCP request ended with its connection/)]);
  });
});
