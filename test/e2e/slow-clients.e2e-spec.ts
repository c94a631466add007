import { Agent, get } from 'node:http';
import { connect } from 'node:net';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startUpstream, type FixtureTool, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, initializeRequest, postMcp } from '../support/mcp-client';
import { rawConnection, statusLine, trickle } from '../support/raw-http';
import { openSse, SseReader } from '../support/sse';
import { waitFor } from '../support/wait-for';
import { StreamQuota } from '../../src/mcp/streams/stream-quota';
import { startTestApp, type TestApp } from '../support/test-app';
import { roleToken } from '../support/tokens';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
/** Node checks the timeouts every second; the rest is margin for a loaded machine. */
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS + 5000;
const SLOW_CLIENTS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers after `ms`, long after its request was in: the response is not timed. */
const slow: FixtureTool = {
  definition: { name: 'slow', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1 },
      });
    await sleep(REQUEST_TIMEOUT_MS + 1500);
    return { content: [{ type: 'text', text: 'slow answer' }] };
  },
};

let release: () => void = () => undefined;

/** Sends progress, so that its POST's answer becomes a stream, then waits for the test. */
const gated: FixtureTool = {
  definition: { name: 'gated', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: extra._meta?.progressToken ?? 'p', progress: 1 },
    });
    await new Promise<void>((resolve) => (release = resolve));
    return { content: [{ type: 'text', text: 'released' }] };
  },
};

/** What `flood` saw of its last call: how many messages it sent, and whether it was cancelled. */
const flooded = { sent: 0, cancelled: false };
/** 4 KiB log messages, up to 80 MiB of them, for as long as the call is not cancelled. */
const flood: FixtureTool = {
  definition: { name: 'flood', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    Object.assign(flooded, { sent: 0, cancelled: false });
    const data = 'x'.repeat(4096);
    while (flooded.sent < 20_000 && !extra.signal.aborted) {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data },
      });
      flooded.sent += 1;
      // Sent as fast as Portico takes them, so that a cancellation arrives mid-flood.
      await new Promise((resolve) => setImmediate(resolve));
    }
    flooded.cancelled = extra.signal.aborted;
    return { content: [{ type: 'text', text: 'flooded' }] };
  },
};

function healthz(t: TestApp): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${t.baseUrl}/healthz`, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
  });
}

function port(t: TestApp): number {
  return Number(new URL(t.baseUrl).port);
}

/** An event stream asked for: read as one when admitted, else its refusal's body. */
interface Stream {
  status: number;
  reader?: SseReader;
  body?: unknown;
}

async function stream(url: string, headers: Record<string, string>): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  if (response.status === 200) return { status: 200, reader: new SseReader(response, abort) };
  return { status: response.status, body: await response.json() };
}

describe('slow and greedy clients', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  /** The principals whose streams the tests open. */
  let subjects: string[] = [];

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'slow', tools: [slow, gated, flood] });
    t = await startTestApp({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        MCP_MAX_STREAMS_PER_PRINCIPAL: '3',
      },
    });
    await t.api().post('/api/v1/gateways').send({ name: 'slow', url: upstream.url }).expect(201);
  });

  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  describe('timeouts', () => {
    it(`answers ${SLOW_CLIENTS} clients trickling their headers with 408 within the headers timeout, serving others meanwhile`, async () => {
      const slowClients = await Promise.all(
        Array.from({ length: SLOW_CLIENTS }, () => rawConnection(port(t))),
      );
      for (const connection of slowClients)
        trickle(
          connection,
          `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(100)}`,
          100,
        );
      // Served while they trickle: REST and an MCP session.
      expect(await healthz(t)).toBe(200);
      const client = await connectClient(t.baseUrl, { token: t.token });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('slow-slow');
      await client.close();
      const open = await Promise.all(slowClients.map((connection) => connection.closed));
      for (const connection of slowClients)
        expect(statusLine(connection)).toBe('HTTP/1.1 408 Request Timeout');
      expect(Math.max(...open)).toBeLessThan(HEADERS_TIMEOUT_MS + 5000);
    }, 30_000);

    it.each([
      ['an MCP endpoint', '/mcp', 'Accept: application/json, text/event-stream\r\n'],
      ['the REST API', '/api/v1/gateways', ''],
    ])(
      'cuts a body trickled to %s at the request timeout with 408',
      async (_name, path, extra) => {
        const connection = await rawConnection(port(t));
        connection.socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n` +
            `Content-Type: application/json\r\n${extra}Content-Length: 1000\r\n\r\n`,
        );
        trickle(
          connection,
          `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(900)}"}}`,
          100,
        );
        expect(await healthz(t)).toBe(200);
        const open = await connection.closed;
        expect(statusLine(connection)).toBe('HTTP/1.1 408 Request Timeout');
        expect(open).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
        expect(open).toBeLessThan(CUT_WITHIN_MS);
        expect(await healthz(t)).toBe(200);
      },
      30_000,
    );

    it('does not time responses: an answer, and an answer streamed, may take longer than the request timeout', async () => {
      const client = await connectClient(t.baseUrl, { token: t.token });
      const progress: number[] = [];
      const [plain, streamed] = (await Promise.all([
        client.callTool({ name: 'slow-slow', arguments: {} }),
        client.callTool({ name: 'slow-slow', arguments: {} }, undefined, {
          onprogress: (update) => progress.push(update.progress),
        }),
      ])) as CallToolResult[];
      expect(plain!.content).toEqual([{ type: 'text', text: 'slow answer' }]);
      expect(streamed!.content).toEqual([{ type: 'text', text: 'slow answer' }]);
      expect(progress).toEqual([1]);
      await client.close();
    }, 30_000);

    it('keeps a session’s GET stream open past the request timeout', async () => {
      const sessionId = await openSession(t.token);
      const { response, reader } = await openSse(`${t.baseUrl}/mcp`, {
        headers: { ...sessionHeaders(t.token, sessionId), Accept: 'text/event-stream' },
      });
      expect(response.status).toBe(200);
      await sleep(REQUEST_TIMEOUT_MS + 1500);
      // Still open: a list change reaches it.
      await t
        .api()
        .patch(`/api/v1/gateways/${await gatewayId()}`)
        .send({ description: 'changed' });
      await t
        .api()
        .post(`/api/v1/gateways/${await gatewayId()}/deactivate`)
        .expect(200);
      try {
        const event = await reader.nextMessage(5000);
        expect(event?.message).toMatchObject({ method: 'notifications/tools/list_changed' });
      } finally {
        await t
          .api()
          .post(`/api/v1/gateways/${await gatewayId()}/activate`)
          .expect(200);
        reader.drop();
      }
    }, 30_000);

    it('lets a kept-alive connection idle past the headers timeout, then serves it', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const call = () =>
        new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
          const request = get(`${t.baseUrl}/healthz`, { agent }, (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket }),
            );
          });
          request.on('error', reject);
        });
      try {
        expect(await call()).toEqual({ status: 200, reused: false });
        await sleep(HEADERS_TIMEOUT_MS + 1500);
        expect(await call()).toEqual({ status: 200, reused: true });
      } finally {
        agent.destroy();
      }
    }, 20_000);
  });

  async function gatewayId(): Promise<string> {
    const response = await t.api().get('/api/v1/gateways').expect(200);
    const page = response.body as { items: { id: string; name: string }[] };
    return page.items.find((gateway) => gateway.name === 'slow')!.id;
  }

  describe('open streams per principal', () => {
    let other: string;

    beforeAll(async () => {
      other = await roleToken(t, t.token, 'admin');
      subjects = [];
      for (const token of [t.token, other]) {
        const me = await fetch(`${t.baseUrl}/api/v1/auth/me`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        subjects.push(((await me.json()) as { subject: string }).subject);
      }
    });

    it('refuses the stream past the cap with 429 naming the limit, and admits one again after a stream closes', async () => {
      const streams = await Promise.all([1, 2, 3].map(() => getStream(t.token)));
      expect(streams.map(({ status }) => status)).toEqual([200, 200, 200]);
      const refused = await getStream(t.token);
      expect(refused).toEqual({
        status: 429,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message:
              'Too many open streams: you hold 3 on this server, and MCP_MAX_STREAMS_PER_PRINCIPAL allows 3; close one first',
          },
        },
      });
      streams[0]!.reader!.drop();
      const again = await eventuallyStream(t.token);
      expect(again.status).toBe(200);
      await dropAll([...streams, again]);
    }, 30_000);

    it('counts the HTTP+SSE transport’s streams too, and makes no session for one refused', async () => {
      const legacy = await Promise.all([1, 2, 3].map(() => legacyStream(t.token)));
      expect(legacy.map(({ status }) => status)).toEqual([200, 200, 200]);
      const sessionsBefore = await sessionCount();
      const refused = await legacyStream(t.token);
      expect(refused.status).toBe(429);
      expect(JSON.stringify(refused.body)).toMatch(/MCP_MAX_STREAMS_PER_PRINCIPAL allows 3/);
      expect(await sessionCount()).toBe(sessionsBefore);
      expect((await getStream(t.token)).status).toBe(429);
      legacy[0]!.reader!.drop();
      const again = await eventuallyStream(t.token);
      await dropAll([...legacy, again]);
    }, 30_000);

    it('does not stop another principal while one is at its cap', async () => {
      const streams = await Promise.all([1, 2, 3].map(() => getStream(t.token)));
      expect((await getStream(t.token)).status).toBe(429);
      const theirs = await getStream(other);
      expect(theirs.status).toBe(200);
      // And the capped principal's sessions still answer plain POSTs.
      const client = await connectClient(t.baseUrl, { token: t.token });
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      await dropAll([...streams, theirs]);
    }, 30_000);

    it('counts a POST whose answer became a stream until that answer ends', async () => {
      const streams = await Promise.all([1, 2].map(() => getStream(t.token)));
      const sessionId = await openSession(t.token);
      const call = await openSse(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: sessionHeaders(t.token, sessionId),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'slow-gated', arguments: {}, _meta: { progressToken: 'p' } },
        }),
      });
      expect(call.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect((await call.reader.nextMessage())?.message).toMatchObject({
        method: 'notifications/progress',
      });
      expect((await getStream(t.token)).status).toBe(429);
      release();
      expect((await call.reader.nextMessage())?.message).toMatchObject({ id: 7 });
      const again = await eventuallyStream(t.token);
      await dropAll([...streams, again]);
    }, 30_000);
  });

  describe('a client that stops reading', () => {
    /**
     * Sends a call of `flood` on a raw connection and never reads a byte of the answer (nor so the
     * end of its connection): Portico must cut it off at about 8 MiB left unread (and what the
     * sockets hold), far from the 80 MiB, cancel the call upstream, and stay up.
     */
    async function stalled(headers: string[], message: object): Promise<void> {
      const body = JSON.stringify(message);
      // What an earlier call left must not pass for this one.
      Object.assign(flooded, { sent: 0, cancelled: false });
      const socket = connect(port(t), '127.0.0.1');
      socket.write(
        [
          'POST /mcp HTTP/1.1',
          'Host: 127.0.0.1',
          `Authorization: Bearer ${t.token}`,
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          ...headers,
          `Content-Length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      );
      socket.pause();
      try {
        await waitFor(() => flooded.cancelled, 'the flood to be cancelled upstream', 30_000);
        expect(flooded.sent).toBeLessThan(10_000);
      } finally {
        socket.destroy();
      }
      expect(await healthz(t)).toBe(200);
    }

    const call = { jsonrpc: '2.0', id: 'flood', method: 'tools/call' };

    it('of 2026-07-28 is dropped once it leaves 8 MiB unread, and its call is cancelled upstream', async () => {
      await stalled(
        ['MCP-Protocol-Version: 2026-07-28', 'Mcp-Method: tools/call', 'Mcp-Name: slow-flood'],
        {
          ...call,
          params: {
            name: 'slow-flood',
            arguments: {},
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 'stalled', version: '1.0.0' },
              'io.modelcontextprotocol/logLevel': 'info',
            },
          },
        },
      );
    }, 60_000);

    it('of a 2025 session has its call cancelled upstream once the call’s stream is 8 MiB behind, and its session goes on', async () => {
      const sessionId = await openSession(t.token);
      const headers = sessionHeaders(t.token, sessionId);
      const setLevel = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'MCP-Protocol-Version': '2025-11-25' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'level',
          method: 'logging/setLevel',
          params: { level: 'info' },
        }),
      });
      expect(setLevel.status).toBe(200);
      await setLevel.text();
      await stalled(['MCP-Protocol-Version: 2025-11-25', `Mcp-Session-Id: ${sessionId}`], {
        ...call,
        params: { name: 'slow-flood', arguments: {} },
      });
      // The session goes on.
      const ping = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'MCP-Protocol-Version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'ping', method: 'ping' }),
      });
      expect(ping.status).toBe(200);
      expect(await ping.text()).toContain('"result"');
    }, 60_000);
  });

  async function sessionCount(): Promise<number> {
    const response = await t.api().get('/metrics').expect(200);
    const line = /^portico_mcp_sessions_local (\d+)/m.exec(response.text);
    return Number(line?.[1]);
  }

  /** A new session's GET stream, held by `token`'s principal. */
  async function getStream(token: string): Promise<Stream> {
    const sessionId = await openSession(token);
    return stream(`${t.baseUrl}/mcp`, {
      ...sessionHeaders(token, sessionId),
      Accept: 'text/event-stream',
    });
  }

  /** A GET stream once the cap admits one: a closed stream is counted out when Node sees it. */
  async function eventuallyStream(token: string): Promise<Stream> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const opened = await getStream(token);
      if (opened.status === 200) return opened;
      await sleep(100);
    }
    throw new Error('no stream admitted within 5 s of one closing');
  }

  function legacyStream(token: string): Promise<Stream> {
    return stream(`${t.baseUrl}/sse`, {
      Authorization: `Bearer ${token}`,
      Accept: 'text/event-stream',
    });
  }

  /** Drops every stream a test opened, and waits until Portico has counted them out. */
  async function dropAll(streams: Stream[]): Promise<void> {
    for (const { reader } of streams) reader?.drop();
    const quota = t.app.get(StreamQuota);
    await waitFor(
      () => subjects.every((subject) => quota.openStreams({ subject }) === 0),
      'the dropped streams to be counted out',
    );
  }

  async function openSession(token: string): Promise<string> {
    const response = await postMcp(`${t.baseUrl}/mcp`, token, initializeRequest());
    expect(response.status).toBe(200);
    await response.text();
    return response.headers.get('mcp-session-id')!;
  }

  function sessionHeaders(token: string, sessionId: string): Record<string, string> {
    return {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
    };
  }
});
