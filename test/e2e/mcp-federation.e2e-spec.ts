import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ResourceUpdatedNotificationSchema,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { type EverythingServer, startEverythingServer } from '../fixtures/everything-server';
import { connectClient, eventually } from '../support/mcp-client';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Resources, templates, subscriptions, prompts and completions of two copies of the npm
 * server-everything behind the gateway-wide endpoint: both offer the same prompt names and the
 * same URIs, which must stay apart.
 */
describe('resources, prompts and completions through the gateway', () => {
  let t: TestApp;
  const upstreams: EverythingServer[] = [];
  let client: Client;
  const STATIC = 'demo://resource/static/document/architecture.md';

  beforeAll(async () => {
    t = await startTestApp();
    for (const name of ['Everything', 'Everything 2']) {
      const upstream = await startEverythingServer('streamableHttp');
      upstreams.push(upstream);
      const created = await t.api().post('/api/v1/gateways').send({ name, url: upstream.url });
      expect(created.status).toBe(201);
      expect(created.body.lastSyncReport.prompts.added).toEqual(
        expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt']),
      );
      expect(created.body.lastSyncReport.resources.added).toContain(STATIC);
    }
    client = await connectClient(t.baseUrl, { token: t.token });
  });

  afterAll(async () => {
    await client.close();
    await t.close();
    await Promise.all(upstreams.map((upstream) => upstream.stop()));
  });

  it('lists both upstreams’ prompts under their virtual names', async () => {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((prompt) => prompt.name);
    expect(names).toEqual(
      expect.arrayContaining(['everything-simple-prompt', 'everything-2-simple-prompt']),
    );
    expect(prompts.find((prompt) => prompt.name === 'everything-args-prompt')).toMatchObject({
      title: 'Arguments Prompt',
      arguments: [
        { name: 'city', required: true },
        { name: 'state', required: false },
      ],
    });
  });

  it('gets a prompt with arguments from its own upstream', async () => {
    const result = await client.getPrompt({
      name: 'everything-2-args-prompt',
      arguments: { city: 'Lyon', state: 'Rhône' },
    });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "What's weather in Lyon, Rhône?" } },
    ]);
    await expect(client.getPrompt({ name: 'args-prompt' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('keeps the same URI of two upstreams apart behind their slugs, and reads each', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toEqual(
      expect.arrayContaining([`everything+${STATIC}`, `everything-2+${STATIC}`]),
    );
    const read = await client.readResource({ uri: `everything-2+${STATIC}` });
    expect(read.contents[0]).toMatchObject({ uri: `everything-2+${STATIC}` });
    expect(JSON.stringify(read.contents[0])).toContain('rchitecture');
    await expect(client.readResource({ uri: STATIC })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'nowhere+demo://x' })).rejects.toMatchObject({
      code: -32002,
    });
  });

  it('lists templates behind the slug, and reads and completes through them', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const template = `everything+demo://resource/dynamic/text/{resourceId}`;
    expect(resourceTemplates.map((entry) => entry.uriTemplate)).toContain(template);
    const read = await client.readResource({ uri: 'everything+demo://resource/dynamic/text/3' });
    expect(read.contents[0]).toMatchObject({
      uri: 'everything+demo://resource/dynamic/text/3',
      mimeType: 'text/plain',
    });
    const completed = await client.complete({
      ref: { type: 'ref/resource', uri: template },
      argument: { name: 'resourceId', value: '1' },
    });
    expect(completed.completion.values).toEqual(expect.arrayContaining(['1']));
  });

  it('names the resources a result links or embeds as the client reads them, behind the slug', async () => {
    const linked = await client.callTool({
      name: 'everything-2-get-resource-links',
      arguments: { count: 2 },
    });
    const links = (linked.content as { type: string; uri?: string }[]).filter(
      (block) => block.type === 'resource_link',
    );
    expect(links.map((link) => link.uri)).toEqual([
      'everything-2+demo://resource/dynamic/blob/1',
      'everything-2+demo://resource/dynamic/text/2',
    ]);
    for (const link of links) {
      const read = await client.readResource({ uri: link.uri! });
      expect(read.contents[0]).toMatchObject({ uri: link.uri });
    }
    const embedded = await client.callTool({
      name: 'everything-get-resource-reference',
      arguments: { resourceType: 'Text', resourceId: 4 },
    });
    expect(embedded.content).toContainEqual({
      type: 'resource',
      resource: expect.objectContaining({ uri: 'everything+demo://resource/dynamic/text/4' }),
    });
    const prompt = await client.getPrompt({
      name: 'everything-2-resource-prompt',
      arguments: { resourceType: 'Text', resourceId: '5' },
    });
    expect(prompt.messages).toContainEqual({
      role: 'user',
      content: {
        type: 'resource',
        resource: expect.objectContaining({ uri: 'everything-2+demo://resource/dynamic/text/5' }),
      },
    });
  });

  it('reads no URI an operator withdrew, not even on /mcp, which reads any URI of a gateway', async () => {
    const gateways = (await t.api().get('/api/v1/gateways').expect(200)).body.items as {
      id: string;
      name: string;
    }[];
    const gatewayId = gateways.find((gateway) => gateway.name === 'Everything')!.id;
    const listed = async (path: string) =>
      (await t.api().get(path).query({ gatewayId, limit: 100 }).expect(200)).body.items as {
        id: string;
        originalUri?: string;
        originalUriTemplate?: string;
      }[];
    const resource = (await listed('/api/v1/resources')).find(
      (entry) => entry.originalUri === STATIC,
    )!;
    const template = (await listed('/api/v1/resource-templates')).find(
      (entry) => entry.originalUriTemplate === 'demo://resource/dynamic/text/{resourceId}',
    )!;
    const enable = (enabled: boolean) =>
      Promise.all([
        t.api().patch(`/api/v1/resources/${resource.id}`).send({ enabled }).expect(200),
        t.api().patch(`/api/v1/resource-templates/${template.id}`).send({ enabled }).expect(200),
      ]);
    const dynamic = 'everything+demo://resource/dynamic/text/3';
    await enable(false);
    try {
      await eventually(async () => {
        // /mcp reads any URI of a gateway behind its slug, but not these.
        await expect(client.readResource({ uri: `everything+${STATIC}` })).rejects.toMatchObject({
          code: -32002,
        });
        await expect(client.readResource({ uri: dynamic })).rejects.toMatchObject({
          code: -32002,
        });
        await expect(
          client.subscribeResource({ uri: `everything+${STATIC}` }),
        ).rejects.toMatchObject({ code: -32002 });
      });
      // The other gateway's copy is its own.
      expect((await client.readResource({ uri: `everything-2+${STATIC}` })).contents).toHaveLength(
        1,
      );
    } finally {
      await enable(true);
    }
    await eventually(async () =>
      expect((await client.readResource({ uri: dynamic })).contents).toHaveLength(1),
    );
  });

  it('completes a prompt argument at the upstream that owns the prompt', async () => {
    const completed = await client.complete({
      ref: { type: 'ref/prompt', name: 'everything-completable-prompt' },
      argument: { name: 'department', value: 'En' },
    });
    expect(completed.completion.values).toEqual(['Engineering']);
    await expect(
      client.complete({
        ref: { type: 'ref/prompt', name: 'no-such-prompt' },
        argument: { name: 'department', value: 'En' },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('forwards resource updates to the subscribed session only, under its URI', async () => {
    const updates = new Map<string, ServerNotification[]>();
    const listen = (who: string, subscriber: Client) => {
      updates.set(who, []);
      subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.get(who)!.push(notification);
      });
    };
    const bystander = await connectClient(t.baseUrl, { token: t.token, name: 'bystander' });
    listen('subscriber', client);
    listen('bystander', bystander);
    const uri = `everything+${STATIC}`;
    await client.subscribeResource({ uri });
    // server-everything sends updates of subscribed URIs to the session that turns them on.
    await client.callTool({ name: 'everything-toggle-subscriber-updates', arguments: {} });
    await bystander.callTool({ name: 'everything-toggle-subscriber-updates', arguments: {} });
    await eventually(() =>
      expect(updates.get('subscriber')).toContainEqual({
        method: 'notifications/resources/updated',
        params: { uri },
      }),
    );
    expect(updates.get('bystander')).toEqual([]);

    await client.unsubscribeResource({ uri });
    await client.callTool({ name: 'everything-toggle-subscriber-updates', arguments: {} });
    await bystander.close();
  });
  it('lets a session subscribe to at most 100 resources, as a listen follows', async () => {
    const session = await connectClient(t.baseUrl, { token: t.token, name: 'collector' });
    const dynamic = (n: number) => `everything+demo://resource/dynamic/text/${n}`;
    try {
      for (let n = 1; n <= 100; n++) await session.subscribeResource({ uri: dynamic(n) });
      // A template matches URIs without end; each followed one is a watch upstream.
      await expect(session.subscribeResource({ uri: dynamic(101) })).rejects.toThrow(
        /-32602: A session may subscribe to at most 100 resources; unsubscribe from one first/,
      );
      await session.subscribeResource({ uri: dynamic(100) });
      await session.unsubscribeResource({ uri: dynamic(1) });
      await session.subscribeResource({ uri: dynamic(101) });
    } finally {
      await session.close();
    }
  });
});
