import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  RootsListChangedNotificationSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { PIXEL, proxyTools } from '../fixtures/proxy-tools';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { factories } from '../support/factories';
import { connectClient, eventually, initializeRequest, postMcp } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

const capabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

/** A client that answers sampling, elicitation and roots with its own name, and records logs. */
async function answeringClient(t: TestApp, name: string) {
  const client = await connectClient(t.baseUrl, { token: t.token, capabilities, name });
  const logs: LoggingMessageNotification['params'][] = [];
  const asked: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    asked.push(`sampling:${(request.params.messages[0]!.content as { text: string }).text}`);
    return {
      role: 'assistant',
      model: name,
      content: { type: 'text', text: `answer from ${name}` },
    };
  });
  client.setRequestHandler(ElicitRequestSchema, () => {
    asked.push('elicitation');
    return { action: 'accept', content: { name } };
  });
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked.push('roots');
    return { roots: [{ uri: `file:///${name}` }] };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  return { client, logs, asked };
}

describe('MCP endpoint as a transparent proxy', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  const observed: string[] = [];
  let alice: Awaited<ReturnType<typeof answeringClient>>;
  let bob: Awaited<ReturnType<typeof answeringClient>>;
  let gatewayId: string;

  const cancellations = () => observed.filter((event) => event.startsWith('cancelled:')).length;
  const slowCalls = () => upstream.calls.filter((entry) => entry.name === 'slow').length;
  const post = (body: unknown, sessionId?: string) =>
    postMcp(`${t.baseUrl}/mcp`, t.token, body, sessionId ? { 'Mcp-Session-Id': sessionId } : {});

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startUpstream({
      name: 'up',
      tools: proxyTools('up', observed),
      configure: (server) =>
        server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
          observed.push('roots-changed');
        }),
    });
    gatewayId = (
      await t.api().post('/api/v1/gateways').send({ name: 'Proxy', url: upstream.url }).expect(201)
    ).body.id;
    alice = await answeringClient(t, 'alice');
    bob = await answeringClient(t, 'bob');
  });

  afterAll(async () => {
    await alice?.client.close();
    await bob?.client.close();
    await t.close();
    await upstream.close();
  });

  it('maps the caller’s progress token through', async () => {
    const progress: Progress[] = [];
    const result = await alice.client.callTool(
      { name: 'proxy-progress', arguments: {} },
      undefined,
      {
        onprogress: (update) => progress.push(update),
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'up: done' }]);
    expect(progress.map((update) => [update.progress, update.total, update.message])).toEqual([
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ]);
  });

  it('passes logging through to the caller only, at the level it set', async () => {
    await alice.client.setLoggingLevel('warning');
    await alice.client.callTool({ name: 'proxy-log', arguments: { tag: 'alice' } });
    await bob.client.callTool({ name: 'proxy-log', arguments: { tag: 'bob' } });
    await eventually(() => expect(bob.logs.length).toBeGreaterThanOrEqual(2));
    expect(alice.logs.map((log) => [log.level, log.data])).toEqual([
      ['warning', 'warning from up alice'],
    ]);
    expect(bob.logs.map((log) => log.data)).toEqual(['debug from up bob', 'warning from up bob']);
  });

  it('forwards sampling, elicitation and roots requests to the calling client and its answers back', async () => {
    const sampled = await alice.client.callTool({
      name: 'proxy-sample',
      arguments: { prompt: 'tell me' },
    });
    expect(sampled.content).toEqual([{ type: 'text', text: 'up sampled: answer from alice' }]);
    const elicited = await bob.client.callTool({ name: 'proxy-elicit', arguments: {} });
    expect(elicited.content).toEqual([
      { type: 'text', text: 'up elicited: accept {"name":"bob"}' },
    ]);
    const roots = await bob.client.callTool({ name: 'proxy-roots', arguments: {} });
    expect(roots.content).toEqual([{ type: 'text', text: 'file:///bob' }]);
    expect(alice.asked).toEqual(['sampling:tell me']);
    expect(bob.asked).toEqual(['elicitation', 'roots']);
  });

  it('passes on a request the upstream makes on its session stream as its first call starts', async () => {
    const carol = await answeringClient(t, 'carol');
    const result = await carol.client.callTool({ name: 'proxy-sample-aside', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: 'sampled: {"type":"text","text":"answer from carol"}' },
    ]);
    expect(carol.asked).toEqual(['sampling:aside']);
    await carol.client.close();
  });

  it('keeps two concurrent clients apart', async () => {
    alice.asked.length = 0;
    bob.asked.length = 0;
    const [a, b] = await Promise.all([
      alice.client.callTool({ name: 'proxy-sample', arguments: { prompt: 'a' } }),
      bob.client.callTool({ name: 'proxy-sample', arguments: { prompt: 'b' } }),
    ]);
    expect(a.content).toEqual([{ type: 'text', text: 'up sampled: answer from alice' }]);
    expect(b.content).toEqual([{ type: 'text', text: 'up sampled: answer from bob' }]);
    expect(alice.asked).toEqual(['sampling:a']);
    expect(bob.asked).toEqual(['sampling:b']);
  });

  // The resources a result names go out under the client's URIs, which /mcp reads (see
  // mcp-federation's "names the resources a result links …").
  it('passes every content kind, structured content and _meta through', async () => {
    const result = await alice.client.callTool({ name: 'proxy-rich', arguments: {} });
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'text' },
        { type: 'image', data: PIXEL, mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'proxy+file:///note.txt', mimeType: 'text/plain', text: 'embedded' },
        },
        { type: 'resource_link', uri: 'proxy+file:///linked.txt', name: 'linked' },
      ],
      structuredContent: { upstream: 'up' },
      _meta: { 'example.com/trace': 'abc' },
    });
  });

  it('returns a tool’s own failure as its isError result', async () => {
    const result = await alice.client.callTool({ name: 'proxy-fail', arguments: {} });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'up failed on purpose' }],
      isError: true,
    });
  });

  it('forwards cancellation upstream', async () => {
    const controller = new AbortController();
    const call = alice.client.callTool(
      { name: 'proxy-slow', arguments: { ms: 30_000 } },
      undefined,
      { signal: controller.signal },
    );
    await eventually(() =>
      expect(upstream.calls.some((entry) => entry.name === 'slow')).toBe(true),
    );
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await eventually(() =>
      expect(observed.some((event) => event.startsWith('cancelled:'))).toBe(true),
    );
    await expect(alice.client.ping()).resolves.toEqual({});
  });

  it('ends a cancelled call’s response with no JSON-RPC answer', async () => {
    const initialized = await post(initializeRequest());
    const sessionId = initialized.headers.get('mcp-session-id')!;
    await initialized.text();
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
    const before = slowCalls();
    const call = post(
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'proxy-slow', arguments: { ms: 30_000 } },
      },
      sessionId,
    );
    await eventually(() => expect(slowCalls()).toBe(before + 1));
    const cancel = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } },
      sessionId,
    );
    expect(cancel.status).toBe(202);
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toBe('');
  });

  it('answers a call in flight when its session is deleted, and ends the upstream session', async () => {
    const client = await connectClient(t.baseUrl, { token: t.token });
    const before = slowCalls();
    const call = client
      .callTool({ name: 'proxy-slow', arguments: { ms: 30_000 } })
      .catch((error: unknown) => error);
    await eventually(() => expect(slowCalls()).toBe(before + 1));
    const sessions = upstream.sessionCount;
    const cancelledBefore = cancellations();
    const started = Date.now();
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(await call).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/Session closed/),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    await eventually(() => expect(cancellations()).toBe(cancelledBefore + 1));
    await eventually(() => expect(upstream.sessionCount).toBe(sessions - 1));
    await client.close();
  });

  it('keeps the upstream session, and a call in flight, through a sync that changed the tools', async () => {
    await alice.client.callTool({ name: 'proxy-rich', arguments: {} });
    const session = upstream.calls.at(-1)!.sessionId;
    const call = alice.client.callTool({ name: 'proxy-slow', arguments: { ms: 1000 } });
    upstream.setTool(echoTool('added', 'up'));
    await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
    await expect(call).resolves.toMatchObject({ content: [{ type: 'text', text: 'slept' }] });
    await alice.client.callTool({ name: 'proxy-added', arguments: {} });
    expect(upstream.calls.at(-1)!.sessionId).toBe(session);
  });

  it('moves to a new upstream session, and ends the old one, when the gateway’s settings change', async () => {
    await bob.client.callTool({ name: 'proxy-rich', arguments: {} });
    const old = upstream.calls.at(-1)!.sessionId!;
    await t
      .api()
      .patch(`/api/v1/gateways/${gatewayId}`)
      .send({ auth: { type: 'headers', headers: { 'X-Trace': 'on' } } })
      .expect(200);
    await eventually(async () => {
      await bob.client.callTool({ name: 'proxy-rich', arguments: {} });
      expect(upstream.calls.at(-1)!.sessionId).not.toBe(old);
    });
    const ping = await fetch(upstream.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': old,
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(ping.status).toBe(404);
  });

  it('forwards the client’s roots list_changed to its upstream sessions', async () => {
    await bob.client.sendRootsListChanged();
    await eventually(() => expect(observed).toContain('roots-changed'));
  });

  it('passes the tool definitions through under virtual names', async () => {
    const { tools } = await alice.client.listTools();
    const rich = tools.find((tool) => tool.name === 'proxy-rich');
    expect(rich).toEqual({
      name: 'proxy-rich',
      description: 'Returns every content kind',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { upstream: { type: 'string' } } },
    });
  });
});

describe('MCP endpoint without optional client capabilities', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let client: Client;

  beforeAll(async () => {
    t = await startTestApp();
    upstream = await startUpstream({ name: 'up', tools: proxyTools('up') });
    const make = factories(t.app);
    await make.tools(await make.gateway({ name: 'Bare', url: upstream.url }), ['sample', 'rich']);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client?.close();
    await t.close();
    await upstream.close();
  });

  it('passes the client’s refusal back when an upstream asks for sampling it cannot do', async () => {
    await expect(client.callTool({ name: 'bare-sample', arguments: {} })).rejects.toThrow(
      /^MCP error -32601: MCP error -32601: Method not found$/,
    );
    await expect(client.callTool({ name: 'bare-rich', arguments: {} })).resolves.toMatchObject({
      structuredContent: { upstream: 'up' },
    });
  });
});
