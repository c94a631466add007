import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startUpstream, type FixtureTool, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, initializeRequest, postMcp } from '../support/mcp-client';
import { openSse } from '../support/sse';
import { onPostgres } from '../support/test-database';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends progress `n` for the call's token, as upstreams do. */
async function progress(extra: Parameters<NonNullable<FixtureTool['handler']>>[1], n: number) {
  const token = extra._meta?.progressToken;
  if (token !== undefined)
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: token, progress: n, total: 2 },
    });
}

/** Closes its own response stream mid-call, as SEP-1699 polling servers do, then answers. */
const poll: FixtureTool = {
  definition: { name: 'poll', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    await progress(extra, 1);
    extra.closeSSEStream?.();
    await sleep(300);
    await progress(extra, 2);
    return { content: [{ type: 'text', text: 'polled' }] };
  },
};

let release: () => void = () => undefined;

/** Reports progress, then waits for the test to release it. */
const gated: FixtureTool = {
  definition: { name: 'gated', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    await progress(extra, 1);
    await new Promise<void>((resolve) => (release = resolve));
    await progress(extra, 2);
    return { content: [{ type: 'text', text: 'released' }] };
  },
};

describe('resumable event streams', () => {
  let t: TestApp;
  /** Where a client reconnects: the other replica on PostgreSQL, the same instance embedded. */
  let elsewhere: TestApp;
  let upstream: UpstreamFixture;
  let client: Client;

  beforeAll(async () => {
    upstream = await startUpstream({
      name: 'resumable',
      tools: [poll, gated],
      resumable: { retryMs: 100 },
    });
    t = await startTestApp();
    elsewhere = onPostgres ? await startReplica(t) : t;
    await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'resumable', url: upstream.url })
      .expect(201);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client.close();
    if (elsewhere !== t) await elsewhere.close();
    await t.close();
    await upstream.close();
  });

  it('resumes with GET and Last-Event-ID a call whose stream the upstream closed mid-call', async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool({ name: 'resumable-poll', arguments: {} }, undefined, {
      onprogress: (update) => seen.push(update),
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'polled' }]);
    expect(seen.map((update) => update.progress)).toEqual([1, 2]);
  });

  async function openSession(): Promise<string> {
    const response = await postMcp(`${t.baseUrl}/mcp`, t.token, initializeRequest());
    expect(response.status).toBe(200);
    await response.text();
    return response.headers.get('mcp-session-id')!;
  }

  function headers(sessionId: string): Record<string, string> {
    return {
      Authorization: `Bearer ${t.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
    };
  }

  it(`replays what a dropped client missed of a call when it resumes ${onPostgres ? 'on the other replica' : 'its stream'}`, async () => {
    const sessionId = await openSession();
    const { response, reader } = await openSse(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: headers(sessionId),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'resumable-gated', arguments: {}, _meta: { progressToken: 'p' } },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const priming = await reader.next();
    expect(priming).toMatchObject({
      data: '',
      id: expect.stringMatching(/^[0-9a-f]{16}\.0$/) as unknown,
    });
    const first = await reader.nextMessage();
    expect(first?.message).toMatchObject({
      method: 'notifications/progress',
      params: { progress: 1 },
    });
    expect(first?.id).toMatch(new RegExp(`^${priming!.id!.split('.')[0]}\\.\\d+$`));
    reader.drop();
    await sleep(100);
    release();

    const resumed = await openSse(`${elsewhere.baseUrl}/mcp`, {
      headers: { ...headers(sessionId), Accept: 'text/event-stream', 'Last-Event-ID': first!.id! },
    });
    expect(resumed.response.status).toBe(200);
    const rest: Record<string, unknown>[] = [];
    for (
      let event = await resumed.reader.nextMessage();
      event;
      event = await resumed.reader.nextMessage()
    )
      rest.push(event.message);
    expect(rest).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 2, total: 2 },
      },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'released' }] } },
    ]);
  });

  it('replays the session stream from its Last-Event-ID, and nothing the client already had', async () => {
    const sessionId = await openSession();
    const stream = await openSse(`${t.baseUrl}/mcp`, {
      headers: { ...headers(sessionId), Accept: 'text/event-stream' },
    });
    expect(await stream.reader.next()).toMatchObject({ id: 'get.0', data: '' });
    const gatewayId = (await t.api().get('/api/v1/gateways')).body.items[0].id as string;
    const ids: string[] = [];
    for (const name of ['added_one', 'added_two']) {
      upstream.setTool({ definition: { name, inputSchema: { type: 'object' } } });
      await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
      const event = await stream.reader.nextMessage();
      expect(event?.message).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
      });
      ids.push(event!.id!);
    }
    stream.reader.drop();
    expect(ids[0]).toMatch(/^get\.\d+$/);

    const resumed = await openSse(`${elsewhere.baseUrl}/mcp`, {
      headers: { ...headers(sessionId), Accept: 'text/event-stream', 'Last-Event-ID': ids[0]! },
    });
    const replayed = await resumed.reader.nextMessage();
    expect(replayed).toEqual({
      id: ids[1],
      message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    });
    resumed.reader.drop();
  });

  it('starts a fresh stream for a Last-Event-ID it never issued', async () => {
    const sessionId = await openSession();
    const stream = await openSse(`${t.baseUrl}/mcp`, {
      headers: { ...headers(sessionId), Accept: 'text/event-stream', 'Last-Event-ID': 'forged-id' },
    });
    expect(stream.response.status).toBe(200);
    expect(await stream.reader.next()).toMatchObject({ id: 'get.0', data: '' });
    stream.reader.drop();
  });
});
