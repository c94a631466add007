import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { factories } from '../support/factories';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

describe('MCP endpoint basics', () => {
  let t: TestApp;
  let one: UpstreamFixture;
  let two: UpstreamFixture;
  let client: Client;

  beforeAll(async () => {
    t = await startTestApp();
    one = await startUpstream({
      name: 'one',
      tools: [echoTool('get_system_time', 'one'), echoTool('only_one', 'one')],
    });
    two = await startUpstream({ name: 'two', tools: [echoTool('get_system_time', 'two')] });
    const make = factories(t.app);
    await make.tools(await make.gateway({ name: 'Gateway 1', url: one.url }), [
      'get_system_time',
      'only_one',
    ]);
    await make.tools(await make.gateway({ name: 'Gateway 2', url: two.url }), ['get_system_time']);
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client?.close();
    await t.close();
    await one.close();
    await two.close();
  });

  it('lists every tool under its virtual name', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'gateway-1-get_system_time',
      'gateway-1-only_one',
      'gateway-2-get_system_time',
    ]);
  });

  it('routes each call to its own upstream under the original name', async () => {
    const first = await client.callTool({
      name: 'gateway-1-get_system_time',
      arguments: { tz: 'UTC' },
    });
    const second = await client.callTool({ name: 'gateway-2-get_system_time', arguments: {} });
    expect(first.structuredContent).toEqual({
      upstream: 'one',
      tool: 'get_system_time',
      args: { tz: 'UTC' },
    });
    expect(second.structuredContent).toEqual({
      upstream: 'two',
      tool: 'get_system_time',
      args: {},
    });
    expect(one.calls.at(-1)?.name).toBe('get_system_time');
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    await expect(client.callTool({ name: 'gateway-3-nothing', arguments: {} })).rejects.toThrow(
      /-32602.*Unknown tool: gateway-3-nothing/,
    );
  });

  it('answers ping', async () => {
    await expect(client.ping()).resolves.toEqual({});
  });
});
