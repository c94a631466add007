import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type EverythingServer, startEverythingServer } from '../fixtures/everything-server';
import { connectClient } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

interface Listed {
  id: string;
  originalName?: string;
  originalUri?: string;
  originalUriTemplate?: string;
}

/**
 * A virtual server with `naming: "original"` exposes its members under their upstream names and
 * URIs, and refuses a second member that would show under the same name.
 */
describe('virtual servers under original names', () => {
  let t: TestApp;
  const upstreams: EverythingServer[] = [];
  const gateways: string[] = [];
  let client: Client;
  const STATIC = 'demo://resource/static/document/architecture.md';

  async function items(path: string, gatewayId: string): Promise<Listed[]> {
    const response = await t.api().get(path).query({ gatewayId, limit: 500 }).expect(200);
    return response.body.items as Listed[];
  }

  beforeAll(async () => {
    t = await startTestApp();
    for (const name of ['First', 'Second']) {
      const upstream = await startEverythingServer('streamableHttp');
      upstreams.push(upstream);
      const created = await t.api().post('/api/v1/gateways').send({ name, url: upstream.url });
      expect(created.status).toBe(201);
      gateways.push(created.body.id as string);
    }
    const [first] = gateways;
    const server = await t
      .api()
      .post('/api/v1/servers')
      .send({
        name: 'Original',
        naming: 'original',
        toolIds: (await items('/api/v1/tools', first!)).map((tool) => tool.id),
        resourceIds: (await items('/api/v1/resources', first!)).map((resource) => resource.id),
        resourceTemplateIds: (await items('/api/v1/resource-templates', first!)).map(
          (template) => template.id,
        ),
        promptIds: (await items('/api/v1/prompts', first!)).map((prompt) => prompt.id),
      })
      .expect(201);
    client = await connectClient(t.baseUrl, {
      token: t.token,
      path: `/servers/${server.body.id as string}/mcp`,
    });
  });

  afterAll(async () => {
    await client.close();
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.stop()));
  });

  it('lists and calls tools under their upstream names', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    const result = await client.callTool({ name: 'echo', arguments: { message: 'as is' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: as is' }]);
  });

  it('reads resources and templates, gets prompts and completes, under upstream names', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(STATIC);
    expect((await client.readResource({ uri: STATIC })).contents[0]).toMatchObject({ uri: STATIC });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    expect(dynamic.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/7' });
    const prompt = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: "What's weather in Oslo?" });
    const completed = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'Mar' },
    });
    expect(completed.completion.values).toEqual(['Marketing']);
  });

  it('refuses, with 409, a member whose name another member already shows', async () => {
    const [first, second] = gateways;
    const echo = async (gatewayId: string) =>
      (await items('/api/v1/tools', gatewayId)).find((tool) => tool.originalName === 'echo')!.id;
    const prompt = async (gatewayId: string) =>
      (await items('/api/v1/prompts', gatewayId)).find(
        (entry) => entry.originalName === 'simple-prompt',
      )!.id;
    const resource = async (gatewayId: string) =>
      (await items('/api/v1/resources', gatewayId)).find((entry) => entry.originalUri === STATIC)!
        .id;
    for (const clash of [
      { toolIds: [await echo(first!), await echo(second!)] },
      { promptIds: [await prompt(first!), await prompt(second!)] },
      { resourceIds: [await resource(first!), await resource(second!)] },
    ]) {
      const response = await t
        .api()
        .post('/api/v1/servers')
        .send({ name: `Clash ${Object.keys(clash)[0]}`, naming: 'original', ...clash });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('server.name_clash');
    }
    const prefixed = await t
      .api()
      .post('/api/v1/servers')
      .send({ name: 'Both, prefixed', toolIds: [await echo(first!), await echo(second!)] });
    expect(prefixed.status).toBe(201);
    const switched = await t
      .api()
      .patch(`/api/v1/servers/${prefixed.body.id as string}`)
      .send({ naming: 'original' });
    expect(switched.status).toBe(409);
  });
});
