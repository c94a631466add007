import { Logger } from '@nestjs/common';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { loginAgent } from '../support/admin-browser-session';
import { connectClient } from '../support/mcp-client';
import { serverToken } from '../support/tokens';
import { startTestApp, type TestApp } from '../support/test-app';

const TOKEN = 'tok-1234567890abcdef';
const API_KEY = 'ke"y\\with-quotes-0987654321';
/** What an upstream echoes: the token without its "Bearer " prefix, the key JSON-escaped, a part. */
const ECHO = `denied: ${TOKEN} / ${JSON.stringify(API_KEY)} / ...567890abcdef`;
/** Pieces of the credentials, each at least 8 characters: none may show anywhere. */
const PIECES = ['1234567890', '567890abcdef', 'with-quo', '0987654321', 'ke\\"y\\\\with'];

function leaked(text: string): string[] {
  return PIECES.filter((piece) => text.includes(piece));
}

describe('an upstream that echoes parts of its credentials', () => {
  let t: TestApp;
  let upstream: UpstreamFixture;
  let gatewayId: string;
  let toolId: string;
  let serverId: string;
  let failListing = false;

  beforeAll(async () => {
    upstream = await startUpstream({
      requiredHeaders: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY },
      tools: [
        {
          definition: { name: 'leak', inputSchema: { type: 'object' } },
          handler: () => {
            throw new McpError(ErrorCode.InvalidRequest, ECHO, { echoed: ECHO });
          },
        },
      ],
      onListPage: () => {
        if (failListing) throw new Error(ECHO);
      },
    });
    t = await startTestApp();
    const gateway = (
      await t
        .api()
        .post('/api/v1/gateways')
        .send({
          name: 'Echoes',
          url: upstream.url,
          auth: {
            type: 'headers',
            headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY },
          },
        })
        .expect(201)
    ).body;
    gatewayId = gateway.id;
    expect(gateway.toolCount).toBe(1);
    toolId = (await t.api().get(`/api/v1/tools?gatewayId=${gatewayId}`).expect(200)).body.items[0]
      .id;
    serverId = (
      await t
        .api()
        .post('/api/v1/servers')
        .send({ name: 'Echo server', toolIds: [toolId] })
    ).body.id;
  });

  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  it('keeps them out of lastError, REST 502 details, the admin page and the WARN log', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    failListing = true;
    try {
      const sync = await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(502);
      expect(sync.text).toContain('denied');
      expect(leaked(sync.text)).toEqual([]);
      const gateway = await t.api().get(`/api/v1/gateways/${gatewayId}`).expect(200);
      expect(gateway.body.lastError).toContain('denied');
      expect(leaked(gateway.text)).toEqual([]);
      const invoke = await t.api().post(`/api/v1/tools/${toolId}/invoke`).send({}).expect(502);
      expect(leaked(invoke.text)).toEqual([]);
      const { agent } = await loginAgent(t.baseUrl);
      const page = await agent.get(`/admin/gateways/${gatewayId}`).expect(200);
      expect(page.text).toContain('denied');
      expect(leaked(page.text)).toEqual([]);
      const logged = warnings.mock.calls.map((call) => call.join(' ')).join('\n');
      expect(logged).toContain('denied');
      expect(leaked(logged)).toEqual([]);
    } finally {
      failListing = false;
      warnings.mockRestore();
    }
  });

  it('keeps them out of the MCP error a server-scoped token receives', async () => {
    const client = await connectClient(t.baseUrl, {
      token: await serverToken(t, serverId),
      path: `/servers/${serverId}/mcp`,
    });
    try {
      const failure = await client.callTool({ name: 'echoes-leak', arguments: {} }).then(
        () => null,
        (error: unknown) => error as McpError,
      );
      expect(failure?.message).toContain('denied');
      expect(leaked(`${failure?.message} ${JSON.stringify(failure?.data)}`)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
