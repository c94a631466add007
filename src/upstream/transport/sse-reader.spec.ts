import { PassThrough, Readable } from 'node:stream';
import { type JSONRPCMessage } from '@modelcontextprotocol/client';
import { type MessageLimits, refusalOf } from './message-bounds';
import { readEventStream, readJsonAnswer } from './sse-reader';
import { UpstreamFailure } from '../upstream-error';

const limits: MessageLimits = { maxBytes: 64 * 1024, maxDepth: 16 };

/** `[[[…]]]` nested `depth` deep, as raw JSON text. */
function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

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
  const position = await readEventStream(
    chunks(...parts),
    (message) => {
      messages.push(message);
      return false;
    },
    limits,
  );
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
      limits,
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

  it('refuses an event larger than a message may be, naming the limit', async () => {
    const huge = `data: "${'x'.repeat(limits.maxBytes)}`;
    await expect(read(huge, '"\n\n')).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining('UPSTREAM_MESSAGE_LIMIT_BYTES') as unknown,
    });
  });

  it.each([
    ['over 1,024 characters', 'x'.repeat(1025)],
    ['not ASCII', 'évènement-1'],
    ['a control character', 'a\u0001b'],
  ])('refuses an event id it could not send back to resume: %s', async (_, id) => {
    await expect(read(`id: ${id}\ndata: ${JSON.stringify(ping)}\n\n`)).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringContaining('cannot be sent back to resume') as unknown,
    });
  });

  it('keeps an event id of 1,024 printable characters', async () => {
    const { messages, position } = await read(
      `id: ${'x'.repeat(1024)}\ndata: ${JSON.stringify(ping)}\n\n`,
    );
    expect(messages).toEqual([ping]);
    expect(position.lastEventId).toHaveLength(1024);
  });

  it('refuses a message nested deeper than JSON_MAX_DEPTH, however deep', async () => {
    const deep = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":${nested(50_000)}}}`;
    await expect(read(`data: ${deep}\n\n`)).rejects.toMatchObject({
      kind: 'protocol',
      message:
        'the upstream sent a message nested more than 16 levels deep, past the limit (JSON_MAX_DEPTH)',
    });
  });
});

describe('readJsonAnswer, of one message', () => {
  const one = (body: string) => readJsonAnswer(chunks(body), limits, 1, () => undefined);
  it('takes an error tied to no request as the answer: the body answers one request', async () => {
    const untied = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    expect(await one(JSON.stringify(untied))).toEqual({ ...untied, id: 1 });
  });

  it('refuses a body larger than the limit, counted in bytes', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"result":{"text":"${'é'.repeat(limits.maxBytes / 2)}"}}`;
    expect(await one(body)).toMatchObject({
      kind: 'protocol',
      message: `the upstream sent a message larger than ${limits.maxBytes} bytes, past the limit (UPSTREAM_MESSAGE_LIMIT_BYTES)`,
    });
  });

  it('keeps the rest of a list whose one entry is nested too deep, cut to its name', async () => {
    const tool = (name: string, schema: string) =>
      `{"name":"${name}","inputSchema":{"type":"object","properties":{"x":${schema}}}}`;
    const message = await one(
      `{"jsonrpc":"2.0","id":1,"result":{"tools":[${tool('fine', '{}')},${tool('deep', nested(3000))}]}}`,
    );
    const tools = (message as unknown as { result: { tools: unknown[] } }).result.tools;
    expect(JSON.parse(JSON.stringify(tools))).toEqual([
      { name: 'fine', inputSchema: { type: 'object', properties: { x: {} } } },
      { name: 'deep' },
    ]);
    expect(refusalOf(tools[0])).toBeNull();
    expect(refusalOf(tools[1])).toBe(
      'the definition is nested more than 13 levels deep, past the limit (JSON_MAX_DEPTH 16, counted from its message)',
    );
  });
});

/** The limits of readJsonAnswer's tests: small, so that a bound is reached soon. */
const small: MessageLimits = { maxBytes: 4096, maxDepth: 16 };
const other = { jsonrpc: '2.0', id: 2, result: {} };
const progress = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: 50 },
};
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

async function answerOf(...chunks: string[]) {
  const heard: unknown[] = [];
  const body = Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
  const answered = await readJsonAnswer(body, small, 1, (message) => heard.push(message));
  return { answered, heard };
}

describe('readJsonAnswer', () => {
  it('reads the answer of a body that is one message, pretty-printed or not', async () => {
    expect(await answerOf(JSON.stringify(answer))).toEqual({ answered: answer, heard: [] });
    const pretty = JSON.stringify(answer, null, 2);
    expect(await answerOf(pretty.slice(0, 9), pretty.slice(9))).toEqual({
      answered: answer,
      heard: [],
    });
  });

  it('reads messages on lines of their own: what comes before the answer is heard, responses to others are not', async () => {
    const lines = [progress, other, ping, answer, progress].map(line).join('');
    expect(await answerOf(lines.slice(0, 30), lines.slice(30))).toEqual({
      answered: answer,
      heard: [progress, ping],
    });
    expect(await answerOf(`${line(progress)}\r\n${JSON.stringify(answer)}`)).toEqual({
      answered: answer,
      heard: [progress],
    });
    expect(await answerOf([progress, other, ping].map(line).join(''))).toMatchObject({
      answered: {
        kind: 'protocol',
        message: 'the upstream answered with something other than the response',
      },
      heard: [progress, ping],
    });
  });

  it('hands on each line as it arrives, while the body is still open', async () => {
    const body = new PassThrough();
    const heard: unknown[] = [];
    const answered = readJsonAnswer(body, small, 1, (message) => heard.push(message));
    body.write(line(progress).slice(0, 20));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([]);
    body.write(line(progress).slice(20));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([progress]);
    body.write(line(answer));
    expect(await answered).toEqual(answer);
    body.end();
  });

  it('says what is wrong with a line that is JSON but no message, a body that is no JSON, or none', async () => {
    expect(await answerOf(`${line(progress)}[1]\n${line(answer)}`)).toMatchObject({
      answered: {
        kind: 'protocol',
        message: 'the upstream sent something other than a JSON-RPC message',
      },
      heard: [progress],
    });
    const { answered, heard } = await answerOf(`${line(progress)}{"jsonrpc":\n`);
    expect((answered as UpstreamFailure).message).toMatch(/^the upstream sent invalid JSON/);
    expect(heard).toEqual([progress]);
    for (const empty of [[], ['\n', ' \r\n']])
      expect((await answerOf(...empty)).answered).toMatchObject({
        message: 'the upstream answered with an empty body',
      });
  });

  it('bounds each line in depth as it bounds a message', async () => {
    const deep = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":${'['.repeat(100)}${']'.repeat(100)}}}`;
    expect(await answerOf(line(progress), deep)).toMatchObject({
      answered: {
        kind: 'protocol',
        message:
          'the upstream sent a message nested more than 16 levels deep, past the limit (JSON_MAX_DEPTH)',
      },
      heard: [progress],
    });
  });

  it('reads one long line arriving in many chunks in one pass, not once per chunk', async () => {
    // Joined or searched again at each chunk, these 16 MiB held the event loop for 7 s.
    const body = new PassThrough({ highWaterMark: 1 << 20 });
    const large: MessageLimits = { maxBytes: 32 * 1024 * 1024, maxDepth: 16 };
    const started = Date.now();
    const answered = readJsonAnswer(body, large, 1, () => undefined);
    body.write('{"jsonrpc":"2.0","id":1,"result":{"text":"');
    const piece = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 256; i++) {
      body.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    body.end('"}}');
    expect(await answered).toMatchObject({ id: 1, result: { text: expect.any(String) } });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('bounds what is unread, not the whole body: many lines pass, one endless line fails', async () => {
    const many = Array.from({ length: 200 }, () => line(progress)).join('');
    expect(many.length).toBeGreaterThan(small.maxBytes * 4);
    expect(await answerOf(many, line(answer))).toMatchObject({ answered: answer });
    const endless = new PassThrough();
    const answered = readJsonAnswer(endless, small, 1, () => undefined);
    for (let i = 0; i < 10 && !endless.destroyed; i++) endless.write('"x",'.repeat(256));
    expect(await answered).toMatchObject({
      kind: 'protocol',
      message: `the upstream sent a message larger than ${small.maxBytes} bytes, past the limit (UPSTREAM_MESSAGE_LIMIT_BYTES)`,
    });
    expect(endless.destroyed).toBe(true);
  });
});
