import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type AppUpstream, startAppUpstream } from '../fixtures/app-upstream';
import { connectClient, eventually } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describeOnPostgres('MCP Apps with two replicas on one PostgreSQL', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  let alpha: AppUpstream;
  let onFirst: Client;
  let onSecond: Client;
  const tools: Record<string, { id: string; toolHash: string }> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    [first, second] = await Promise.all([startTestApp({ database }), startTestApp({ database })]);
    alpha = await startAppUpstream({
      label: 'alpha',
      html: '<!doctype html><html><body>alpha app</body></html>',
    });
    const gateway = (
      await first.api().post('/api/v1/gateways').send({ name: 'Alpha', url: alpha.fixture.url })
    ).body;
    const { body } = await first.api().get('/api/v1/tools').query({ gatewayId: gateway.id });
    for (const tool of body.items as { id: string; originalName: string; toolHash: string }[])
      tools[tool.originalName] = tool;
    // A server whose only tool is get-time: its app's backend `refresh` is found by hash alone.
    const server = (
      await first
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Time', toolIds: [tools['get-time']!.id] })
    ).body;
    const path = `/servers/${server.id}/mcp`;
    onFirst = await connectClient(first.baseUrl, { token: first.token, path });
    // The same session, served by the other replica.
    onSecond = await connectClient(second.baseUrl, {
      token: second.token,
      path,
      sessionId: (onFirst.transport as StreamableHTTPClientTransport).sessionId!,
    });
  });

  afterAll(async () => {
    await onSecond?.close();
    await onFirst?.close();
    await second?.close();
    await first?.close();
    await alpha?.fixture.close();
    await database?.drop();
  });

  it('serves a session’s UI reads and hashed calls on any replica', async () => {
    const uri = `ui://prefab/tool/${tools['get-time']!.toolHash}/renderer.html`;
    const { contents } = await onSecond.readResource({ uri });
    expect(contents[0]).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app' });
    expect((contents[0] as { text: string }).text).toContain('alpha app');
    const result = await onSecond.callTool({
      name: `${tools.refresh!.toolHash}_refresh`,
      arguments: {},
    });
    expect(result.structuredContent).toEqual({ upstream: 'alpha', tool: 'refresh' });
  });

  it('stops serving a hashed name on every replica once a tool is disabled on one', async () => {
    const name = `${tools.refresh!.toolHash}_refresh`;
    await onSecond.callTool({ name, arguments: {} });
    await first.api().patch(`/api/v1/tools/${tools.refresh!.id}`).send({ enabled: false });
    await eventually(async () => {
      await expect(onSecond.callTool({ name, arguments: {} })).rejects.toThrow(
        `Unknown tool: ${name}`,
      );
    });
  });
});
