import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { McpSession } from '../../src/mcp/state/mcp-session.entity';
import { SessionStore } from '../../src/mcp/sessions/session.store';
import { initializeRequest, postMcp } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

describe('MCP Streamable HTTP transport rules', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { BODY_LIMIT_BYTES: String(1024 * 1024) } });
  });

  afterAll(async () => {
    await t.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    postMcp(`${t.baseUrl}/mcp`, t.token, body, headers);

  const open = async (protocolVersion?: string) => {
    const response = await post(initializeRequest(1, protocolVersion));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { protocolVersion: string } };
    return {
      sessionId: response.headers.get('mcp-session-id')!,
      version: body.result.protocolVersion,
    };
  };

  it('issues a session id on initialize and serves requests with it', async () => {
    const { sessionId, version } = await open();
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect(version).toBe(LATEST_PROTOCOL_VERSION);
    const ping = await post(
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': version },
    );
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const notification = await post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'Mcp-Session-Id': sessionId },
    );
    expect(notification.status).toBe(202);
  });

  it.each(['2025-06-18', '2025-03-26', '2024-11-05'])(
    'negotiates the older protocol revision %s',
    async (revision) => {
      const { sessionId, version } = await open(revision);
      expect(version).toBe(revision);
      const ping = await post(
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': revision },
      );
      expect(ping.status).toBe(200);
    },
  );

  it('answers an unknown protocol version with the latest', async () => {
    expect((await open('1999-01-01')).version).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('ends a session on DELETE; afterwards its id is unknown', async () => {
    const { sessionId } = await open();
    const deleted = await fetch(`${t.baseUrl}/mcp`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.token}`, 'Mcp-Session-Id': sessionId },
    });
    expect(deleted.status).toBe(200);
    const after = await post(
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { 'Mcp-Session-Id': sessionId },
    );
    expect(after.status).toBe(404);
  });

  it.each([
    ['malformed JSON', '{"jsonrpc":', {}, 400],
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], {}, 400],
    ['not JSON-RPC', { hello: 'world' }, {}, 400],
    [
      'a wrong content type',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      { 'Content-Type': 'text/plain' },
      415,
    ],
    [
      'an Accept without event streams',
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { Accept: 'application/json' },
      406,
    ],
    ['a missing session', { jsonrpc: '2.0', id: 1, method: 'ping' }, {}, 400],
    [
      'an unknown session',
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'Mcp-Session-Id': 'no-such-session' },
      404,
    ],
    ['a foreign Origin', initializeRequest(), { Origin: 'https://evil.example' }, 403],
    ['a session id on initialize', initializeRequest(), { 'Mcp-Session-Id': 'x' }, 400],
  ])('refuses %s', async (_case, body, headers, status) => {
    const response = await post(body, headers);
    expect(response.status).toBe(status);
    expect(response.status).not.toBe(500);
  });

  it.each([
    ['no token', '/mcp', JSON.stringify(initializeRequest()), { Authorization: '' }],
    ['a bad token', '/mcp', JSON.stringify(initializeRequest()), { Authorization: 'Bearer nope' }],
    ['malformed JSON', '/mcp', '{"jsonrpc":', {}],
    ['a 10 MB body', '/mcp', JSON.stringify({ pad: 'x'.repeat(10 * 1024 * 1024) }), {}],
    ['a wrong content type', '/mcp', 'hello', { 'Content-Type': 'text/plain' }],
    [
      'a virtual server path and no token',
      '/servers/00000000-0000-4000-8000-000000000000/mcp',
      JSON.stringify(initializeRequest()),
      { Authorization: '' },
    ],
  ])(
    'answers a foreign Origin with 403 before anything else, with %s',
    async (_case, path, body, headers) => {
      const response = await postMcp(`${t.baseUrl}${path}`, t.token, body, {
        Origin: 'https://evil.example',
        ...headers,
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Origin not allowed' },
      });
    },
  );

  it.each([
    ['a token', true],
    ['no token', false],
  ])('refuses a foreign Host (DNS rebinding), with %s', async (_case, withToken) => {
    const body = JSON.stringify(initializeRequest());
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${t.baseUrl}/mcp`,
        {
          method: 'POST',
          headers: {
            Host: 'evil.example',
            ...(withToken ? { Authorization: `Bearer ${t.token}` } : {}),
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    expect(status).toBe(403);
  });

  it('answers malformed JSON with a JSON-RPC parse error', async () => {
    const response = await post('{"jsonrpc":');
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700 },
    });
  });

  it('cleans up expired sessions', async () => {
    const { sessionId } = await open();
    const idle = new Date(Date.now() - (t.config.mcpSessionTtlSeconds + 60) * 1000);
    await t.app
      .get(DataSource)
      .getRepository(McpSession)
      .update({ id: sessionId }, { lastSeenAt: idle });
    await t.app.get(SessionStore).removeExpired();
    expect(await t.app.get(DataSource).getRepository(McpSession).existsBy({ id: sessionId })).toBe(
      false,
    );
    const after = await post(
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { 'Mcp-Session-Id': sessionId },
    );
    expect(after.status).toBe(404);
  });

  it('refuses an unknown protocol version header on a session, and accepts any supported one', async () => {
    const { sessionId } = await open();
    const ping = (version: string) =>
      post(
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': version },
      );
    expect((await ping('1999-01-01')).status).toBe(400);
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const response = await ping(version);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    }
  });

  it('accepts an allowed browser origin', async () => {
    expect((await post(initializeRequest(), { Origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post(initializeRequest(), { Origin: t.config.publicUrl })).status).toBe(200);
  });

  it('answers a 10 MB body with 413, and keeps serving', async () => {
    const huge = {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(10 * 1024 * 1024) },
    };
    expect((await post(huge)).status).toBe(413);
    expect((await post(initializeRequest())).status).toBe(200);
  });

  it('answers 413 to a client still sending its oversized body, never a reset', async () => {
    const url = new URL(t.baseUrl);
    const size = 12 * 1024 * 1024;
    for (let attempt = 0; attempt < 3; attempt++) {
      const heard = await new Promise<string>((resolve) => {
        const socket = connect(Number(url.port), url.hostname);
        let got = '';
        socket.on('data', (data) => {
          got += data.toString();
          if (!got.includes('\r\n\r\n')) return;
          resolve(got.split('\r\n')[0]!);
          socket.destroy();
        });
        socket.on('error', (error) => resolve(`${error.message} after ${JSON.stringify(got)}`));
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${t.token}\r\n` +
            'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
            `Content-Length: ${size}\r\n\r\n`,
        );
        const piece = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const pump = (): void => {
          while (sent < size) {
            sent += piece.length;
            if (!socket.write(piece)) {
              socket.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
      expect(heard).toBe('HTTP/1.1 413 Payload Too Large');
    }
  });

  it('answers an unknown method with a JSON-RPC error', async () => {
    const { sessionId } = await open();
    const response = await post(
      { jsonrpc: '2.0', id: 9, method: 'no/such/method' },
      { 'Mcp-Session-Id': sessionId },
    );
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32601, message: 'Method not found' },
    });
  });

  it('opens one event stream per session here, and refuses a second', async () => {
    const { sessionId } = await open();
    const headers = {
      Authorization: `Bearer ${t.token}`,
      Accept: 'text/event-stream',
      'Mcp-Session-Id': sessionId,
    };
    const first = await fetch(`${t.baseUrl}/mcp`, { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const second = await fetch(`${t.baseUrl}/mcp`, { headers });
    expect(second.status).toBe(409);
    await first.body?.cancel();
    const wrongAccept = await fetch(`${t.baseUrl}/mcp`, {
      headers: { ...headers, Accept: 'application/json' },
    });
    expect(wrongAccept.status).toBe(406);
  });

  it('answers a CORS preflight for an allowed origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,mcp-session-id',
        },
      });
    const allowed = await preflight('http://localhost:6274');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(
      (await preflight('https://evil.example')).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('lets a page of an allowed origin read the answer and its session id, and refuses others', async () => {
    const allowed = await post(initializeRequest(1), { Origin: 'http://localhost:6274' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(allowed.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id/);
    expect(allowed.headers.get('mcp-session-id')).toBeTruthy();
    const foreign = await post(initializeRequest(1), { Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(await foreign.json()).toMatchObject({ error: { message: 'Origin not allowed' } });
    // Refused before the token is looked at: a rebinding page learns nothing from a 401.
    const anonymous = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      body: JSON.stringify(initializeRequest(1)),
    });
    expect(anonymous.status).toBe(403);
  });

  it('serves a request whose target is in absolute form, as an HTTP proxy may send it', async () => {
    const body = JSON.stringify(initializeRequest(1));
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: new URL(t.baseUrl).port,
          method: 'POST',
          path: `${t.baseUrl}/mcp`,
          headers: {
            Authorization: `Bearer ${t.token}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    expect(status).toBe(200);
  });

  it('answers another method on the endpoint with 405 and the methods it has', async () => {
    for (const method of ['HEAD', 'PUT', 'PATCH']) {
      const response = await fetch(`${t.baseUrl}/mcp`, {
        method,
        headers: { Authorization: `Bearer ${t.token}` },
      });
      expect({ method, status: response.status }).toEqual({ method, status: 405 });
      expect(response.headers.get('allow')).toBe('POST, GET, DELETE');
    }
    const put = await fetch(`${t.baseUrl}/servers/${randomUUID()}/mcp`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(((await put.json()) as { error: { message: string } }).error.message).toBe(
      'PUT is not a method of the MCP endpoint',
    );
  });

  it('gives every answer a request id, the client’s own when it is plain', async () => {
    const { sessionId } = await open();
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const own = await post(ping, { 'Mcp-Session-Id': sessionId, 'X-Request-Id': 'trace-42' });
    expect(own.headers.get('x-request-id')).toBe('trace-42');
    const odd = await post(ping, { 'Mcp-Session-Id': sessionId, 'X-Request-Id': 'a b<c>' });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unauthenticated = await fetch(`${t.baseUrl}/MCP/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ping),
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toMatch(/resource_metadata=/);
    expect(unauthenticated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
