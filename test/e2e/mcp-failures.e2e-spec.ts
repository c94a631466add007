import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  CallToolRequestSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ASK_NAME, proxyTools } from '../fixtures/proxy-tools';
import {
  echoTool,
  type FixtureTool,
  startUpstream,
  UpstreamFixture,
} from '../fixtures/upstream-server';
import { factories } from '../support/factories';
import { connectClient, eventually } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** An upstream on the older HTTP+SSE transport with one tool that elicits, for the SDK-client path. */
async function startSseUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const transports = new Map<string, SSEServerTransport>();
  const http = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      transports.set(transport.sessionId, transport);
      const server = new Server({ name: 'legacy', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'elicit', inputSchema: { type: 'object' } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
        const result = await extra.sendRequest(ASK_NAME, ElicitResultSchema);
        return {
          content: [
            { type: 'text', text: `legacy elicited: ${JSON.stringify(result.content ?? {})}` },
          ],
        };
      });
      void server.connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (request.method === 'POST' && transport) {
      void transport.handlePostMessage(request, response);
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * A 2025 upstream that begins a session at each initialize and knows none afterwards: every other
 * request with a session id is 404, as a server that lost the session at once answers.
 */
async function startForgetfulUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const message = JSON.parse(body || '{}') as { id?: number; method?: string };
      if (message.method !== 'initialize') {
        response.writeHead(message.id === undefined ? 202 : 404).end();
        return;
      }
      const result = {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'forgetful', version: '1' },
      };
      response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'once' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** Says it is still working every 250 ms (progress, or a log message) for `ms`, or until cancelled. */
function chattyTool(observed: string[]): FixtureTool {
  return {
    definition: { name: 'chatty', inputSchema: { type: 'object' } },
    handler: async (args, extra) => {
      const token = extra._meta?.progressToken;
      const until = Date.now() + Number(args.ms);
      for (let step = 1; Date.now() < until && !extra.signal.aborted; step++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await extra.sendNotification(
          token === undefined
            ? { method: 'notifications/message', params: { level: 'info', data: `step ${step}` } }
            : {
                method: 'notifications/progress',
                params: { progressToken: token, progress: step },
              },
        );
      }
      if (extra.signal.aborted) observed.push('cancelled');
      return { content: [{ type: 'text', text: 'worked' }] };
    },
  };
}

describe('MCP endpoint with failing upstreams', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let healthy: UpstreamFixture;
  let mute: UpstreamFixture;
  let legacy: Awaited<ReturnType<typeof startSseUpstream>>;
  let chatty: UpstreamFixture;
  const chattyObserved: string[] = [];
  let client: Client;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({
      env: { UPSTREAM_TIMEOUT_MS: '1500' },
      settings: { upstreamCallMaxMs: 4000 },
    });
    upstream = await startUpstream({ name: 'flaky', tools: proxyTools('flaky') });
    healthy = await startUpstream({ name: 'healthy', tools: [echoTool('ok', 'healthy')] });
    port = Number(new URL(upstream.url).port);
    const make = factories(t.app);
    await make.tools(await make.gateway({ name: 'Flaky', url: upstream.url }), [
      'slow',
      'fail',
      'rich',
      'elicit',
    ]);
    await make.tools(await make.gateway({ name: 'Healthy', url: healthy.url }), ['ok']);
    // Serves calls, but never answers logging/setLevel.
    mute = await startUpstream({
      name: 'mute',
      tools: [echoTool('ok', 'mute')],
      configure: (server) =>
        server.setRequestHandler(SetLevelRequestSchema, () => new Promise<never>(() => undefined)),
    });
    await make.tools(await make.gateway({ name: 'Mute', url: mute.url }), ['ok']);
    legacy = await startSseUpstream();
    await make.tools(await make.gateway({ name: 'Legacy', url: legacy.url, transport: 'sse' }), [
      'elicit',
    ]);
    chatty = await startUpstream({ name: 'chatty', tools: [chattyTool(chattyObserved)] });
    await make.tools(await make.gateway({ name: 'Chatty', url: chatty.url }), ['chatty']);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client?.close();
    await t.close();
    await upstream.close();
    await healthy.close();
    await mute.close();
    await legacy.close();
    await chatty.close();
  });

  it('gives a clear error when the upstream is slower than UPSTREAM_TIMEOUT_MS, and keeps the session', async () => {
    const started = Date.now();
    await expect(
      client.callTool({ name: 'flaky-slow', arguments: { ms: 10_000 } }),
    ).rejects.toThrow(/-32001.*Upstream 'flaky' did not answer within 1500 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(client.callTool({ name: 'healthy-ok', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'healthy' },
    });
    await expect(
      client.callTool({ name: 'flaky-slow', arguments: { ms: 10 } }),
    ).resolves.toMatchObject({
      content: [{ type: 'text', text: 'slept' }],
    });
  });

  it('keeps a call the upstream says it is working on past UPSTREAM_TIMEOUT_MS, never past settings.upstream.callMaxMs', async () => {
    const progress: number[] = [];
    const onprogress = ({ progress: step }: { progress: number }) => progress.push(step);
    await expect(
      client.callTool({ name: 'chatty-chatty', arguments: { ms: 2500 } }, undefined, {
        onprogress,
        resetTimeoutOnProgress: true,
      }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'worked' }] });
    expect(progress.length).toBeGreaterThan(5);

    // Log messages are signs of life too; however many, the call ends at the maximum.
    for (const options of [{ onprogress, resetTimeoutOnProgress: true }, {}]) {
      const started = Date.now();
      await expect(
        client.callTool({ name: 'chatty-chatty', arguments: { ms: 60_000 } }, undefined, options),
      ).rejects.toThrow(
        /-32001.*Upstream 'chatty' did not answer in time: still running after 4000 ms, the longest a call may run/,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(3900);
      expect(Date.now() - started).toBeLessThan(8000);
    }
    // Cancelled upstream, and the session goes on.
    await eventually(() => expect(chattyObserved).toEqual(['cancelled', 'cancelled']));
    await expect(
      client.callTool({ name: 'chatty-chatty', arguments: { ms: 300 } }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'worked' }] });
  });

  it('lets the client take longer than UPSTREAM_TIMEOUT_MS to answer an elicitation', async () => {
    const patient = await connectClient(t.baseUrl, {
      token: t.token,
      capabilities: { elicitation: { form: {} } },
    });
    patient.setRequestHandler(ElicitRequestSchema, async () => {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      return { action: 'accept', content: { name: 'late' } };
    });
    try {
      await expect(
        patient.callTool({ name: 'flaky-elicit', arguments: {} }),
      ).resolves.toMatchObject({
        content: [{ type: 'text', text: 'flaky elicited: accept {"name":"late"}' }],
      });
      // The same through an upstream on the older HTTP+SSE transport.
      await expect(
        patient.callTool({ name: 'legacy-elicit', arguments: {} }),
      ).resolves.toMatchObject({
        content: [{ type: 'text', text: 'legacy elicited: {"name":"late"}' }],
      });
    } finally {
      await patient.close();
    }
  });

  it('sets the log level even when an upstream never answers it', async () => {
    await client.callTool({ name: 'mute-ok', arguments: {} });
    const started = Date.now();
    await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(client.callTool({ name: 'mute-ok', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'mute' },
    });
  });

  it('fails a call cleanly when the upstream dies mid-call, and works again after a restart', async () => {
    const call = client.callTool({ name: 'flaky-slow', arguments: { ms: 10_000 } });
    await eventually(() =>
      expect(upstream.calls.filter((entry) => entry.name === 'slow').length).toBe(3),
    );
    await upstream.crash();
    await expect(call).rejects.toThrow(/-32010.*Upstream 'flaky'/);

    await expect(client.callTool({ name: 'flaky-rich', arguments: {} })).rejects.toThrow(
      /-32010.*Upstream 'flaky' is unavailable/,
    );
    await expect(client.callTool({ name: 'healthy-ok', arguments: {} })).resolves.toBeDefined();

    upstream = await new UpstreamFixture({ name: 'flaky', tools: proxyTools('flaky') }).start(port);
    await expect(client.callTool({ name: 'flaky-rich', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'flaky' },
    });
  });

  it('says an upstream that forgets each session it begins speaks badly, not that it is unavailable', async () => {
    const forgetful = await startForgetfulUpstream();
    try {
      const make = factories(t.app);
      await make.tools(await make.gateway({ name: 'Forgetful', url: forgetful.url }), ['tool']);
      // Once the directory has the new tool, each call is refused the same way.
      await eventually(() =>
        expect(client.callTool({ name: 'forgetful-tool', arguments: {} })).rejects.toMatchObject({
          code: -32012,
          message: expect.stringContaining(
            'answered with a message Portico cannot use: it answered 404 for the session it just began',
          ),
        }),
      );
    } finally {
      await forgetful.close();
    }
  });

  it('opens a new upstream session when a restarted upstream no longer knows ours', async () => {
    await client.callTool({ name: 'flaky-rich', arguments: {} });
    await upstream.close();
    upstream = await new UpstreamFixture({ name: 'flaky', tools: proxyTools('flaky') }).start(port);
    await expect(client.callTool({ name: 'flaky-rich', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'flaky' },
    });
  });
});
