import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { factories } from '../support/factories';
import { serverToken } from '../support/tokens';
import { connectClient } from '../support/mcp-client';
import { rawListen } from '../support/modern-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const execFileAsync = promisify(execFile);

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

  it('counts calls by gateway and outcome in the metrics', async () => {
    const response = await fetch(`${t.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${t.token}` },
    });
    const body = await response.text();
    expect(body).toMatch(/portico_tool_calls_total\{gateway="gateway-1",outcome="ok"\} [1-9]/);
    expect(body).toMatch(/portico_tool_calls_total\{gateway="none",outcome="error"\} [1-9]/);
    expect(body).toMatch(/portico_tool_call_duration_seconds_count [1-9]/);
  });

  it('works with the MCP Inspector CLI', async () => {
    const cli = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');
    // The CLI finds its own package.json relative to the working directory.
    const inspector = (...args: string[]) =>
      execFileAsync(
        process.execPath,
        [
          cli,
          `${t.baseUrl}/mcp`,
          '--transport',
          'http',
          '--header',
          `Authorization: Bearer ${t.token}`,
          ...args,
        ],
        { cwd: dirname(cli) },
      );
    const listed = JSON.parse((await inspector('--method', 'tools/list')).stdout) as {
      tools: { name: string }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toContain('gateway-2-get_system_time');
    const called = JSON.parse(
      (
        await inspector(
          '--method',
          'tools/call',
          '--tool-name',
          'gateway-2-get_system_time',
          '--tool-arg',
          'tz=UTC',
        )
      ).stdout,
    ) as { structuredContent: unknown };
    expect(called.structuredContent).toEqual({
      upstream: 'two',
      tool: 'get_system_time',
      args: { tz: 'UTC' },
    });
  });

  it('answers ping', async () => {
    await expect(client.ping()).resolves.toEqual({});
  });
});

describe('metrics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: 'scrape-token-0123456789' } });
  });

  afterAll(async () => {
    await t.close();
  });

  const scrape = (token?: string) =>
    fetch(`${t.baseUrl}/metrics`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});

  it('serves Prometheus metrics to an admin token or METRICS_TOKEN only', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('scrape-token-wrong-012345')).status).toBe(401);
    const server = await t.api().post('/api/v1/servers').send({ name: 'Scraped' }).expect(201);
    const scoped = await serverToken(t, server.body.id as string);
    expect((await scrape(scoped)).status).toBe(403);
    for (const token of [t.token, 'scrape-token-0123456789']) {
      const response = await scrape(token);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const body = await response.text();
      expect(body).toContain('# TYPE portico_tool_calls_total counter');
      expect(body).toContain('portico_mcp_sessions_local');
    }
  });

  it('counts the listens open on the replica', async () => {
    const listens = async () =>
      /^portico_mcp_listens_local (\d+)$/m.exec(await (await scrape(t.token)).text())?.[1];
    expect(await listens()).toBe('0');
    const { response, reader } = await rawListen(t.baseUrl, t.token, { toolsListChanged: true });
    expect(response.status).toBe(200);
    expect((await reader.nextMessage())?.message).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
    });
    expect(await listens()).toBe('1');
    reader.drop();
    await waitFor(async () => (await listens()) === '0', 'the closed listen to be forgotten');
  });

  it("stops reporting a deleted gateway's upstream guards", async () => {
    const upstream = await startUpstream({ name: 'brief', tools: [echoTool('ping_me', 'brief')] });
    const scraped = async () => (await scrape(t.token)).text();
    const guarded = /portico_upstream_circuit_state\{gateway="brief",state="closed"\} 1/;
    try {
      const gateway = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'brief', url: upstream.url })
        .expect(201);
      const client = await connectClient(t.baseUrl, { token: t.token });
      try {
        await client.callTool({ name: 'brief-ping_me', arguments: {} });
      } finally {
        await client.close();
      }
      expect(await scraped()).toMatch(guarded);
      await t
        .api()
        .delete(`/api/v1/gateways/${gateway.body.id as string}`)
        .expect(204);
      await waitFor(
        async () => !guarded.test(await scraped()),
        "the deleted gateway's guard to leave the metrics",
      );
    } finally {
      await upstream.close();
    }
  });
});
