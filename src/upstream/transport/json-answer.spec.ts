import { PassThrough, Readable } from 'node:stream';
import { type MessageLimits } from './message-bounds';
import { readJsonAnswer } from './json-answer';
import { type UpstreamFailure } from '../upstream-error';

const limits: MessageLimits = { maxBytes: 4096, maxDepth: 16 };
const answer = { jsonrpc: '2.0', id: 1, result: {} };
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
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
  const answered = await readJsonAnswer(body, limits, 1, (message) => heard.push(message));
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
    const answered = readJsonAnswer(body, limits, 1, (message) => heard.push(message));
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

  it('says what is wrong with a line that is JSON but no message, or a body that is no JSON', async () => {
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

  it('bounds what is unread, not the whole body: many lines pass, one endless line fails', async () => {
    const many = Array.from({ length: 200 }, () => line(progress)).join('');
    expect(many.length).toBeGreaterThan(limits.maxBytes * 4);
    expect(await answerOf(many, line(answer))).toMatchObject({ answered: answer });
    const endless = new PassThrough();
    const answered = readJsonAnswer(endless, limits, 1, () => undefined);
    for (let i = 0; i < 10 && !endless.destroyed; i++) endless.write('"x",'.repeat(256));
    expect(await answered).toMatchObject({
      kind: 'protocol',
      message: `the upstream sent a message larger than ${limits.maxBytes} bytes, past the limit (UPSTREAM_MESSAGE_LIMIT_BYTES)`,
    });
    expect(endless.destroyed).toBe(true);
  });
});
