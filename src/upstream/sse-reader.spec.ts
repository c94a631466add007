import { Readable } from 'node:stream';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_CHARS, readEventStream, readJsonBody } from './sse-reader';
import { UpstreamFailure } from './upstream-error';

function chunks(...parts: (string | Uint8Array)[]): Readable {
  return Readable.from(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))),
    { objectMode: false },
  );
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const answer = { jsonrpc: '2.0', id: 1, result: {} };

async function read(...parts: (string | Uint8Array)[]) {
  const messages: JSONRPCMessage[] = [];
  const position = await readEventStream(chunks(...parts), (message) => {
    messages.push(message);
    return false;
  });
  return { messages, position };
}

describe('readEventStream', () => {
  it('skips a priming event (an id and empty data), keeping its id and retry', async () => {
    const { messages, position } = await read(
      `id: a.0\nretry: 5000\ndata: \n\n`,
      `id: a.1\ndata: ${JSON.stringify(ping)}\n\n`,
    );
    expect(messages).toEqual([ping]);
    expect(position).toEqual({ lastEventId: 'a.1', retryMs: 5000 });
  });

  it('keeps the id of a priming event the stream then closes after', async () => {
    const { messages, position } = await read('id: p.0\nretry: 200\ndata:\n\n');
    expect(messages).toEqual([]);
    expect(position).toEqual({ lastEventId: 'p.0', retryMs: 200 });
  });

  it('skips a priming event replayed as `{}`, as SDK event stores do when resuming', async () => {
    const { messages, position } = await read(
      `id: s_1_b\ndata: {}\n\n`,
      `id: s_1_c\ndata: ${JSON.stringify(ping)}\n\n`,
    );
    expect(messages).toEqual([ping]);
    expect(position).toEqual({ lastEventId: 's_1_c' });
  });

  it('reads CR, LF and CRLF line ends, comments, and data split across lines and chunks', async () => {
    const json = JSON.stringify(answer);
    const { messages } = await read(
      ': keepalive\r\n\r\n',
      `event: message\rdata: ${json}\r\r`,
      `data: ${json.slice(0, 10)}`,
      `${json.slice(10)}\r\n\r\n`,
      `data: {"jsonrpc":"2.0",\ndata: "method":"notifications/initialized"}\n\n`,
    );
    expect(messages).toEqual([
      answer,
      answer,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('strips a byte order mark, even split across chunks', async () => {
    const bytes = new TextEncoder().encode(`\uFEFFdata: ${JSON.stringify(ping)}\n\n`);
    const { messages } = await read(bytes.slice(0, 2), bytes.slice(2));
    expect(messages).toEqual([ping]);
  });

  it('ignores events of other types', async () => {
    const { messages } = await read(`event: endpoint\ndata: /messages\n\n`);
    expect(messages).toEqual([]);
  });

  it('stops where the handler says, with the stream position', async () => {
    const position = await readEventStream(
      chunks(
        `id: 1\ndata: ${JSON.stringify(answer)}\n\n`,
        `id: 2\ndata: ${JSON.stringify(ping)}\n\n`,
      ),
      () => true,
    );
    expect(position.lastEventId).toBe('1');
  });

  it('refuses invalid JSON and what is not a JSON-RPC message', async () => {
    await expect(read('data: {not json\n\n')).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining('invalid JSON') as unknown,
    });
    await expect(read('data: [1,2]\n\n')).rejects.toBeInstanceOf(UpstreamFailure);
    await expect(read('data: {"id":1}\n\n')).rejects.toBeInstanceOf(UpstreamFailure);
  });

  it('refuses an event larger than a message may be', async () => {
    const huge = `data: "${'x'.repeat(MAX_MESSAGE_CHARS)}`;
    await expect(read(huge, '"\n\n')).rejects.toMatchObject({ kind: 'protocol' });
  });
});

describe('readJsonBody', () => {
  it('reads a message, and says what is wrong with anything else', async () => {
    expect(await readJsonBody(chunks(JSON.stringify(answer)))).toEqual(answer);
    expect(await readJsonBody(chunks('<html>'))).toBeInstanceOf(UpstreamFailure);
  });
});
