import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  echoTool,
  type FixtureTool,
  startUpstream,
  type UpstreamFixture,
} from '../fixtures/upstream-server';
import { postMcp } from '../support/mcp-client';
import { openSse } from '../support/sse';
import { onPostgres } from '../support/test-database';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';

/** Asks the client to sample during the call, and answers with what it said. */
const asking: FixtureTool = {
  definition: { name: 'ask', inputSchema: { type: 'object' } },
  handler: async (_args, extra) => {
    const answer = await extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }],
          maxTokens: 5,
        },
      },
      CreateMessageResultSchema,
    );
    return { content: [{ type: 'text', text: `client said ${JSON.stringify(answer.content)}` }] };
  },
};

/** The SDK's client of the older HTTP+SSE transport, against `path` of `app`. */
async function legacyClient(app: TestApp, path: string, postTo?: TestApp): Promise<Client> {
  const client = new Client({ name: 'legacy', version: '1' }, { capabilities: { sampling: {} } });
  const headers = { Authorization: `Bearer ${app.token}` };
  const transport = new SSEClientTransport(new URL(path, app.baseUrl), {
    requestInit: { headers },
    eventSourceInit: {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), ...headers },
        }),
    },
    // Messages may be POSTed to another replica than the one holding the stream.
    fetch: (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const target = postTo ?? app;
      return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
    },
  });
  await client.connect(transport);
  return client;
}

describe('the older HTTP+SSE transport (2024-11-05)', () => {
  let t: TestApp;
  let replica: TestApp;
  let upstream: UpstreamFixture;

  beforeAll(async () => {
    upstream = await startUpstream({ name: 'up', tools: [echoTool('echo', 'up'), asking] });
    t = await startTestApp();
    replica = onPostgres ? await startReplica(t) : t;
    await t.api().post('/api/v1/gateways').send({ name: 'up', url: upstream.url }).expect(201);
  });

  afterAll(async () => {
    if (replica !== t) await replica.close();
    await t.close();
    await upstream.close();
  });

  it('lists and calls tools over /sse, answers arriving on the stream', async () => {
    const client = await legacyClient(t, '/sse');
    expect(client.getServerVersion()?.name).toBe('Portico');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['up-ask', 'up-echo']);
    const result = await client.callTool({ name: 'up-echo', arguments: { a: 1 } });
    expect(result.structuredContent).toEqual({ upstream: 'up', tool: 'echo', args: { a: 1 } });
    await client.close();
  });

  it(`serves a session whose messages are POSTed ${onPostgres ? 'to another replica than its stream' : 'beside its stream'}, sampling included`, async () => {
    const server = (
      await t.api().post('/api/v1/servers').send({ name: 'Legacy', toolIds: [] }).expect(201)
    ).body as { id: string };
    const tools = (await t.api().get('/api/v1/tools').expect(200)).body.items as { id: string }[];
    await t
      .api()
      .patch(`/api/v1/servers/${server.id}`)
      .send({ toolIds: tools.map((tool) => tool.id) })
      .expect(200);
    const client = await legacyClient(t, `/servers/${server.id}/sse`, replica);
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'yes' },
      model: 'test',
    }));
    const result = await client.callTool({ name: 'up-ask', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: 'client said {"type":"text","text":"yes"}' },
    ]);
    await client.close();
  });

  it('names the message URL in its first event, and ends the session with its stream', async () => {
    const { response, reader } = await openSse(`${t.baseUrl}/sse`, {
      headers: { Authorization: `Bearer ${t.token}`, Accept: 'text/event-stream' },
    });
    expect(response.status).toBe(200);
    const endpoint = await reader.next();
    expect(endpoint).toMatchObject({
      event: 'endpoint',
      data: expect.stringMatching(/^\/messages\?sessionId=/) as unknown,
    });
    const messages = `${t.baseUrl}${endpoint!.data}`;
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    };
    const accepted = await postMcp(messages, t.token, initialize);
    expect(accepted.status).toBe(202);
    const answer = await reader.nextMessage();
    expect(answer?.message).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });

    reader.drop();
    const deadline = Date.now() + 5000;
    let status = 202;
    while (status !== 404 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await postMcp(messages, t.token, { jsonrpc: '2.0', id: 2, method: 'ping' })).status;
    }
    expect(status).toBe(404);
  });

  it("refuses another principal's session", async () => {
    const other = (
      await t.api().post('/api/v1/servers').send({ name: 'Other', toolIds: [] }).expect(201)
    ).body as { id: string };
    const { reader } = await openSse(`${t.baseUrl}/servers/${other.id}/sse`, {
      headers: { Authorization: `Bearer ${t.token}`, Accept: 'text/event-stream' },
    });
    const endpoint = await reader.next();
    expect(endpoint?.data).toMatch(new RegExp(`^/servers/${other.id}/messages\\?sessionId=`));
    const token = (await t.api().post(`/api/v1/servers/${other.id}/tokens`).send({}).expect(201))
      .body.accessToken as string;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const foreign = await postMcp(`${t.baseUrl}${endpoint!.data}`, token, ping);
    expect(foreign.status).toBe(404);
    const own = await postMcp(`${t.baseUrl}${endpoint!.data}`, t.token, ping);
    expect(own.status).toBe(202);
    reader.drop();
  });
});
