import { type CallToolResult } from '@modelcontextprotocol/client';
import { type Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListRootsRequestSchema,
  ListResourcesRequestSchema,
  ListRootsResultSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import {
  type ModernEverythingServer,
  startModernEverythingServer,
} from '../fixtures/modern-everything-server';
import { cancelledWaits, startedWaits } from '../fixtures/modern-everything/tools';
import { type FixtureTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createTeam, createUser } from '../support/identities';
import { connectClient } from '../support/mcp-client';
import { type Fetch, modernClient, rawCall } from '../support/modern-client';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const REFUSED = 'Invalid or expired requestState';

const text = (result: unknown) =>
  ((result as CallToolResult).content[0] as { type: 'text'; text: string }).text;

/** Tools of a 2025 upstream (SDK v1) that ask their client for input mid-call. */
function askingTools(
  aborted: string[],
  linked = { count: 0 },
  started: string[] = [],
): FixtureTool[] {
  const tool = (name: string, handler: FixtureTool['handler']): FixtureTool => ({
    definition: { name, description: name, inputSchema: { type: 'object', properties: {} } },
    handler,
  });
  const elicit = (extra: Parameters<NonNullable<FixtureTool['handler']>>[1], message: string) =>
    extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message,
          requestedSchema: {
            type: 'object',
            properties: { answer: { type: 'string' } },
            required: ['answer'],
          },
        },
      },
      ElicitResultSchema,
    );
  const sample = (extra: Parameters<NonNullable<FixtureTool['handler']>>[1]) =>
    extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
          maxTokens: 10,
        },
      },
      CreateMessageResultSchema,
    );
  const said = (result: { content: unknown }) =>
    (result.content as { type: string; text?: string }).text ?? '';
  return [
    tool('summarize', async (_args, extra) => ({
      content: [{ type: 'text', text: `sampled ${said(await sample(extra))}` }],
    })),
    tool('confirm_delete', async (_args, extra) => {
      const answer = await elicit(extra, 'Delete everything?');
      return {
        content: [
          {
            type: 'text',
            text:
              answer.action === 'accept'
                ? `deleted (${String(answer.content?.answer)})`
                : `kept: ${answer.action}`,
          },
        ],
      };
    }),
    tool('two_questions', async (_args, extra) => {
      const name = await elicit(extra, 'Your name?');
      const colour = await elicit(extra, 'Your colour?');
      return {
        content: [
          {
            type: 'text',
            text: `${String(name.content?.answer)} likes ${String(colour.content?.answer)}`,
          },
        ],
      };
    }),
    tool('both_at_once', async (_args, extra) => {
      const [sampled, roots] = await Promise.all([
        sample(extra),
        extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema),
      ]);
      return {
        content: [
          {
            type: 'text',
            text: `${said(sampled)} in ${roots.roots.map((root) => root.uri).join(',')}`,
          },
        ],
      };
    }),
    tool('needs_link', () => {
      linked.count++;
      // Refused until the user has connected: the first two calls.
      if (linked.count <= 2)
        throw new McpError(-32042, 'Connect first', {
          elicitations: [
            {
              mode: 'url',
              elicitationId: 'e1',
              url: 'https://example.com/connect',
              message: 'Connect',
            },
          ],
        });
      return { content: [{ type: 'text', text: 'linked' }] };
    }),
    tool('wait_for_cancel', async (_args, extra) => {
      started.push('wait_for_cancel');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          aborted.push('wait_for_cancel');
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'done' }] };
    }),
    tool('wait_for_answer', async (_args, extra) => {
      extra.signal.addEventListener('abort', () => aborted.push('wait_for_answer'));
      await elicit(extra, 'Take your time').catch(() => undefined);
      return { content: [{ type: 'text', text: 'answered' }] };
    }),
  ];
}

/**
 * A 2025 upstream (SDK v1) with one resource, `memo://board`, that clients may subscribe to, and
 * a tool that tells every subscribed session it changed. `subscribed` lists the live subscriptions.
 */
async function startWatchedUpstream() {
  const sessions = new Set<Server>();
  const subscribed: string[] = [];
  const fixture = await startUpstream({
    name: 'watched',
    capabilities: { resources: { subscribe: true } },
    tools: [
      {
        definition: { name: 'touch_board', inputSchema: { type: 'object', properties: {} } },
        handler: async () => {
          await Promise.all(
            [...sessions].map((server) => server.sendResourceUpdated({ uri: 'memo://board' })),
          );
          return { content: [{ type: 'text', text: 'touched' }] };
        },
      },
    ],
    configure: (server) => {
      server.setRequestHandler(ListResourcesRequestSchema, () => ({
        resources: [{ uri: 'memo://board', name: 'board', mimeType: 'text/plain' }],
      }));
      server.setRequestHandler(ReadResourceRequestSchema, () => ({
        contents: [{ uri: 'memo://board', mimeType: 'text/plain', text: 'memo' }],
      }));
      server.setRequestHandler(SubscribeRequestSchema, (request) => {
        sessions.add(server);
        subscribed.push(request.params.uri);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
        sessions.delete(server);
        subscribed.splice(subscribed.indexOf(request.params.uri), 1);
        return {};
      });
      server.onclose = () => {
        if (sessions.delete(server)) subscribed.splice(0, 1);
      };
    },
  });
  return { fixture, subscribed };
}

/** A tool that does nothing: an upstream whose prompts a test uses needs one to be synced. */
const NOOP_TOOL: FixtureTool = {
  definition: { name: 'noop', inputSchema: { type: 'object', properties: {} } },
  handler: () => Promise.resolve({ content: [{ type: 'text', text: 'noop' }] }),
};

/**
 * A 2025 upstream (SDK v1) whose prompt and resource ask their client a question while they are
 * read: rounds on `prompts/get` and `resources/read`, not only on tool calls.
 */
function startAskingReader() {
  const question = { type: 'object' as const, properties: { answer: { type: 'string' as const } } };
  const ask = async (extra: { sendRequest: Server['request'] }, message: string) => {
    const answered = await extra.sendRequest(
      { method: 'elicitation/create', params: { message, requestedSchema: question } },
      ElicitResultSchema,
    );
    return String((answered.content as { answer?: unknown } | undefined)?.answer);
  };
  return startUpstream({
    name: 'reader',
    capabilities: { prompts: {}, resources: {} },
    tools: [NOOP_TOOL],
    configure: (server) => {
      server.setRequestHandler(ListPromptsRequestSchema, () => ({
        prompts: [{ name: 'greeting', description: 'Asks whom to greet' }],
      }));
      server.setRequestHandler(GetPromptRequestSchema, async (_request, extra) => ({
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Greet ${await ask(extra, 'Whom?')}` },
          },
        ],
      }));
      server.setRequestHandler(ListResourcesRequestSchema, () => ({
        resources: [{ uri: 'memo://secret', name: 'secret', mimeType: 'text/plain' }],
      }));
      server.setRequestHandler(ReadResourceRequestSchema, async (_request, extra) => ({
        contents: [
          {
            uri: 'memo://secret',
            mimeType: 'text/plain',
            text: `for ${await ask(extra, 'Who reads?')}`,
          },
        ],
      }));
    },
  });
}

/** A 2026-07-28 client that answers every kind of round; `decline` says no to elicitations. */
const answering = (app: TestApp, options: { fetchVia?: Fetch; decline?: boolean } = {}) =>
  modernClient(app, {
    ...(options.fetchVia ? { fetchVia: options.fetchVia } : {}),
    elicit: (request) =>
      options.decline
        ? { action: 'decline' }
        : {
            action: 'accept',
            content: { answer: request.message.includes('colour') ? 'blue' : 'Ada' },
          },
  });

/** A 2025 client (SDK v1) that answers elicitation, sampling and roots. */
async function legacyClient(app: TestApp, fetchVia?: Fetch): Promise<LegacyClient> {
  const client = await connectClient(app.baseUrl, {
    token: app.token,
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
    ...(fetchVia ? { fetch: fetchVia } : {}),
  });
  client.setRequestHandler(ElicitRequestSchema, (request) =>
    Promise.resolve(
      request.params.message.includes('decline')
        ? { action: 'decline' as const }
        : {
            action: 'accept' as const,
            content: {
              name: 'Ada',
              color: 'blue',
              username: 'ada',
              email: 'ada@example.com',
              ok: true,
            },
          },
    ),
  );
  client.setRequestHandler(CreateMessageRequestSchema, () =>
    Promise.resolve({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'Paris' },
      model: 'test-model',
    }),
  );
  client.setRequestHandler(ListRootsRequestSchema, () =>
    Promise.resolve({ roots: [{ uri: 'file:///work', name: 'work' }] }),
  );
  return client;
}

/** Registers an upstream and waits for its tools; original tool names to the names /mcp serves. */
async function register(app: TestApp, body: Record<string, unknown>): Promise<Map<string, string>> {
  const gateway = await app.api().post('/api/v1/gateways').send(body).expect(201);
  let names = new Map<string, string>();
  await waitFor(
    async () => {
      const tools = await app
        .api()
        .get('/api/v1/tools')
        .query({ gatewayId: gateway.body.id, limit: 500 });
      names = new Map(
        (tools.body.items as { name: string; originalName: string }[]).map((tool) => [
          tool.originalName,
          tool.name,
        ]),
      );
      return names.size > 0;
    },
    `the tools of ${String(body.name)} to be synced`,
  );
  return names;
}

describe('Translation between the eras (one replica)', () => {
  let t: TestApp;
  let old: UpstreamFixture;
  let modern: ModernEverythingServer;
  let oldNames: Map<string, string>;
  let modernNames: Map<string, string>;
  let stdioNames: Map<string, string>;
  let modernStdioNames: Map<string, string>;
  let watched: Awaited<ReturnType<typeof startWatchedUpstream>>;
  let watchedNames: Map<string, string>;
  const aborted: string[] = [];
  const started: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      env: { MCP_INPUT_ROUND_TTL_SECONDS: '2', STDIO_COMMANDS: 'node', SYNC_INTERVAL_SECONDS: '0' },
    });
    old = await startUpstream({ name: 'old', tools: askingTools(aborted, undefined, started) });
    watched = await startWatchedUpstream();
    modern = await startModernEverythingServer({ legacy: 'reject' });
    oldNames = await register(t, { name: 'Old', url: old.url });
    watchedNames = await register(t, { name: 'Watched', url: watched.fixture.url });
    modernNames = await register(t, { name: 'Modern', url: modern.url });
    modernStdioNames = await register(t, {
      name: 'Modern stdio',
      transport: 'stdio',
      command: 'node',
      args: [join(__dirname, '..', 'fixtures', 'modern-stdio-server.mjs')],
    });
    stdioNames = await register(t, {
      name: 'Sampler',
      transport: 'stdio',
      command: 'node',
      args: [join(__dirname, '..', 'fixtures', 'stdio-sampler.mjs')],
    });
  });

  afterAll(async () => {
    await t.close();
    await old.close();
    await watched.fixture.close();
    await modern.close();
  });

  describe('a 2026-07-28 client, a 2025 upstream', () => {
    it('answers a sampling request as an input_required round, over HTTP and stdio', async () => {
      const client = await answering(t);
      try {
        const http = await client.callTool({ name: oldNames.get('summarize')!, arguments: {} });
        expect(text(http)).toBe('sampled Paris');
        const stdio = await client.callTool({
          name: stdioNames.get('sample')!,
          arguments: { prompt: 'hi' },
        });
        expect(text(stdio)).toMatch(/^sampled Paris in \d+$/);
      } finally {
        await client.close();
      }
    });

    it('asks requests that arrive together in one round, and one round after another', async () => {
      const first = await rawCall(
        t,
        'r1',
        { name: oldNames.get('both_at_once')!, arguments: {} },
        { capabilities: { sampling: {}, roots: {} } },
      );
      const round = first.body.result as {
        resultType: string;
        inputRequests: Record<string, { method: string }>;
        requestState: string;
      };
      expect(round.resultType).toBe('input_required');
      expect(
        Object.values(round.inputRequests)
          .map((input) => input.method)
          .sort(),
      ).toEqual(['roots/list', 'sampling/createMessage']);
      const client = await answering(t);
      try {
        const both = await client.callTool({ name: oldNames.get('both_at_once')!, arguments: {} });
        expect(text(both)).toBe('Paris in file:///work');
        const two = await client.callTool({ name: oldNames.get('two_questions')!, arguments: {} });
        expect(text(two)).toBe('Ada likes blue');
      } finally {
        await client.close();
      }
    });

    it('passes a declined elicitation through, and refuses what the client did not declare', async () => {
      const declining = await answering(t, { decline: true });
      try {
        const kept = await declining.callTool({
          name: oldNames.get('confirm_delete')!,
          arguments: {},
        });
        expect(text(kept)).toBe('kept: decline');
      } finally {
        await declining.close();
      }
      const refused = await rawCall(
        t,
        'no-caps',
        { name: oldNames.get('summarize')!, arguments: {} },
        { capabilities: {} },
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { sampling: {} } },
      });
    });

    it('answers rounds on prompts/get and resources/read, not only on tool calls', async () => {
      const reader = await startAskingReader();
      const client = await answering(t);
      try {
        await register(t, { name: 'Reader', url: reader.url });
        let prompt = '';
        let resource = '';
        await waitFor(async () => {
          prompt =
            (await client.listPrompts()).prompts.find((p) => p.name.endsWith('greeting'))?.name ??
            '';
          resource =
            (await client.listResources()).resources.find((r) => r.uri.includes('memo://secret'))
              ?.uri ?? '';
          return prompt !== '' && resource !== '';
        }, "the reader's prompt and resource to be synced");
        const greeted = await client.getPrompt({ name: prompt });
        expect(greeted.messages[0]?.content).toMatchObject({ text: 'Greet Ada' });
        const read = await client.readResource({ uri: resource });
        expect(read.contents[0]).toMatchObject({ uri: resource, text: 'for Ada' });
      } finally {
        await client.close();
        await reader.close();
      }
    });

    it('runs a prompt again after the URL round its -32042 became, as it runs a tool', async () => {
      let asked = 0;
      const linking = await startUpstream({
        name: 'linking',
        capabilities: { prompts: {} },
        tools: [NOOP_TOOL],
        configure: (server) => {
          server.setRequestHandler(ListPromptsRequestSchema, () => ({
            prompts: [{ name: 'linked', description: 'Needs a connected account' }],
          }));
          server.setRequestHandler(GetPromptRequestSchema, () => {
            asked++;
            if (asked === 1)
              throw new McpError(-32042, 'Connect first', {
                elicitations: [
                  { mode: 'url', elicitationId: 'p1', url: 'https://example.com/p', message: 'Go' },
                ],
              });
            return { messages: [{ role: 'user', content: { type: 'text', text: 'linked' } }] };
          });
        },
      });
      const opened: unknown[] = [];
      const client = await modernClient(t, {
        capabilities: { elicitation: { url: {} } },
        elicit: (request) => {
          opened.push(request);
          return { action: 'accept' };
        },
      });
      try {
        await register(t, { name: 'Linking', url: linking.url });
        let prompt = '';
        await waitFor(async () => {
          prompt =
            (await client.listPrompts()).prompts.find((p) => p.name.endsWith('linked'))?.name ?? '';
          return prompt !== '';
        }, "the linking upstream's prompt to be synced");
        const got = await client.getPrompt({ name: prompt });
        expect(got.messages[0]?.content).toMatchObject({ text: 'linked' });
        expect(opened).toEqual([
          expect.objectContaining({ mode: 'url', url: 'https://example.com/p' }),
        ]);
        expect(asked).toBe(2);
      } finally {
        await client.close();
        await linking.close();
      }
    });

    it("turns an upstream's URL elicitation error into a URL-mode round that runs the call again", async () => {
      const name = oldNames.get('needs_link')!;
      // -32042 is retired on this wire: a client that cannot open the link is told the
      // capability the call needs, and still gets the link.
      const plain = await rawCall(t, 'u0', { name, arguments: {} });
      expect(plain.status).toBe(400);
      expect(plain.body.error).toMatchObject({
        code: -32021,
        message: expect.stringContaining('Connect first'),
        data: {
          requiredCapabilities: { elicitation: { url: {} } },
          elicitations: [{ mode: 'url', url: 'https://example.com/connect' }],
        },
      });
      const url = { capabilities: { elicitation: { url: {} } } };
      const first = await rawCall(t, 'u1', { name, arguments: {} }, url);
      expect(first.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: {
          url_1: {
            method: 'elicitation/create',
            params: { mode: 'url', url: 'https://example.com/connect', message: 'Connect' },
          },
        },
      });
      const { requestState } = first.body.result as { requestState: string };
      const again = await rawCall(
        t,
        'u2',
        { name, arguments: {}, requestState, inputResponses: { url_1: { action: 'accept' } } },
        url,
      );
      expect(again.body.result).toMatchObject({
        resultType: 'complete',
        content: [{ text: 'linked' }],
      });
    });

    it('refuses a retry whose answers leave one out, a state for other arguments, and an expired call (cancelled upstream)', async () => {
      const name = oldNames.get('wait_for_answer')!;
      const first = await rawCall(t, 'w1', { name, arguments: {} });
      const { requestState, inputRequests } = first.body.result as {
        requestState: string;
        inputRequests: Record<string, unknown>;
      };
      const incomplete = await rawCall(t, 'w2', {
        name,
        arguments: {},
        requestState,
        inputResponses: {},
      });
      expect(incomplete.body.error?.message).toMatch(/inputResponses has no answer for/);
      const foreign = await rawCall(t, 'w3', {
        name,
        arguments: { other: true },
        requestState,
        inputResponses: {},
      });
      expect(foreign.body.error).toMatchObject({ code: -32602, message: REFUSED });
      // Nobody answers: the round expires and the upstream hears the call cancelled.
      await waitFor(
        () => aborted.includes('wait_for_answer'),
        'the parked call to be cancelled upstream',
      );
      const late = await rawCall(t, 'w4', {
        name,
        arguments: {},
        requestState,
        inputResponses: Object.fromEntries(
          Object.keys(inputRequests).map((key) => [key, { action: 'decline' }]),
        ),
      });
      expect(late.body.error).toMatchObject({ code: -32602 });
    });
  });

  describe('cancellation across the eras', () => {
    it('a 2026-07-28 client closing its stream cancels the call on a 2025 upstream', async () => {
      const abort = new AbortController();
      const closed = rawCall(
        t,
        'c1',
        { name: oldNames.get('wait_for_cancel')!, arguments: {} },
        { capabilities: {}, signal: abort.signal },
      );
      // Cancelled once the upstream has the call: one cancelled sooner never reaches it at all.
      await waitFor(() => started.includes('wait_for_cancel'), 'the upstream to have the call');
      abort.abort();
      await closed.catch(() => undefined);
      await waitFor(() => aborted.includes('wait_for_cancel'), 'the upstream to hear the cancel');
    });

    it("a 2025 client's notifications/cancelled closes the call's stream to a 2026-07-28 upstream", async () => {
      const client = await legacyClient(t);
      try {
        const before = cancelledWaits.count;
        const begun = startedWaits.count;
        const abort = new AbortController();
        const call = client.callTool(
          { name: modernNames.get('test_wait_for_cancel')!, arguments: {} },
          undefined,
          { signal: abort.signal },
        );
        await waitFor(() => startedWaits.count > begun, 'the upstream to have the call');
        abort.abort('changed my mind');
        await expect(call).rejects.toThrow();
        await waitFor(
          () => cancelledWaits.count > before,
          'the upstream to see the call cancelled',
        );
      } finally {
        await client.close();
      }
    });
  });

  describe('resource subscriptions across the eras', () => {
    /** The URI /mcp serves a gateway's resource under. */
    const served = async (gateway: string, upstreamUri: string) => {
      const listed = await t.api().get('/api/v1/resources').query({ limit: 500 }).expect(200);
      const resource = (
        listed.body.items as { uri: string; originalUri?: string; gatewaySlug?: string }[]
      ).find((each) => each.originalUri === upstreamUri && each.gatewaySlug === gateway);
      if (!resource) throw new Error(`${gateway} serves no ${upstreamUri}`);
      return resource.uri;
    };
    const touch = () =>
      rawCall(t, 'touch', {
        name: modernNames.get('test_update_watched_resource')!,
        arguments: {},
      });

    it('a 2026-07-28 listen follows a resource upstream; another listen hears nothing of it', async () => {
      const uri = await served('modern', 'test://watched-resource');
      const follower = await answering(t);
      const bystander = await answering(t);
      try {
        const heard: string[] = [];
        follower.setNotificationHandler('notifications/resources/updated', (note) => {
          heard.push(note.params.uri);
        });
        let bystanderHeard = 0;
        bystander.setNotificationHandler('notifications/resources/updated', () => {
          bystanderHeard++;
        });
        const listen = await follower.listen({ resourceSubscriptions: [uri, 'test://no-such'] });
        expect(listen.honoredFilter.resourceSubscriptions).toEqual([uri]);
        const other = await bystander.listen({ toolsListChanged: true });
        await touch();
        await waitFor(() => heard.length > 0, 'the listen to hear the update');
        expect(heard).toEqual([uri]);
        expect(bystanderHeard).toBe(0);
        await listen.close();
        await other.close();
      } finally {
        await follower.close();
        await bystander.close();
      }
    });

    it('stops telling a listen and a session of a resource disabled since, and tells them again once it is back', async () => {
      const listed = await t.api().get('/api/v1/resources').query({ limit: 500 }).expect(200);
      const resource = (
        listed.body.items as {
          id: string;
          uri: string;
          originalUri?: string;
          gatewaySlug?: string;
        }[]
      ).find(
        (each) => each.originalUri === 'test://watched-resource' && each.gatewaySlug === 'modern',
      )!;
      const listener = await answering(t);
      const subscriber = await legacyClient(t);
      const heard: string[] = [];
      try {
        listener.setNotificationHandler('notifications/resources/updated', (note) => {
          heard.push(`listen ${note.params.uri}`);
        });
        subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
          heard.push(`session ${note.params.uri}`);
        });
        const listen = await listener.listen({ resourceSubscriptions: [resource.uri] });
        await subscriber.subscribeResource({ uri: resource.uri });
        const both = [`listen ${resource.uri}`, `session ${resource.uri}`];
        await touch();
        await waitFor(() => heard.length === 2, 'both to hear the update');
        expect(heard.sort()).toEqual(both);
        await t
          .api()
          .patch(`/api/v1/resources/${resource.id}`)
          .send({ enabled: false })
          .expect(200);
        await touch();
        await t.api().patch(`/api/v1/resources/${resource.id}`).send({ enabled: true }).expect(200);
        await touch();
        await waitFor(() => heard.length >= 4, 'both to hear the update once it is back');
        await new Promise((resolve) => setTimeout(resolve, 500));
        // Each heard the first and the last update; the one while it was disabled, neither.
        expect(heard.sort()).toEqual([both[0], both[0], both[1], both[1]]);
        await listen.close();
      } finally {
        await listener.close();
        await subscriber.close();
      }
    });

    it('stops telling a member of updates once their team no longer owns the server', async () => {
      const listed = await t.api().get('/api/v1/resources').query({ limit: 500 }).expect(200);
      const resource = (
        listed.body.items as { id: string; originalUri?: string; gatewaySlug?: string }[]
      ).find(
        (each) => each.originalUri === 'test://watched-resource' && each.gatewaySlug === 'modern',
      )!;
      const ours = await createTeam(t, 'Watchers');
      const theirs = await createTeam(t, 'Others');
      const member = await createUser(t, 'watcher', 'member', [ours]);
      const server = (
        await t
          .api()
          .post('/api/v1/servers')
          .send({ name: 'Watched by a team', teamId: ours, resourceIds: [resource.id] })
          .expect(201)
      ).body as { id: string };
      const path = `/servers/${server.id}/mcp`;
      const listener = await modernClient(t, { token: member.token, path });
      const subscriber = await connectClient(t.baseUrl, { token: member.token, path });
      const heard: string[] = [];
      try {
        listener.setNotificationHandler('notifications/resources/updated', () => {
          heard.push('listen');
        });
        subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
          heard.push('session');
        });
        const { resources } = await subscriber.listResources();
        const uri = resources[0]!.uri;
        const listen = await listener.listen({ resourceSubscriptions: [uri] });
        await subscriber.subscribeResource({ uri });
        await touch();
        await waitFor(() => heard.length === 2, 'both to hear the update');
        await t.api().patch(`/api/v1/servers/${server.id}`).send({ teamId: theirs }).expect(200);
        await touch();
        await t.api().patch(`/api/v1/servers/${server.id}`).send({ teamId: ours }).expect(200);
        await touch();
        await waitFor(() => heard.length >= 4, 'both to hear the update once it is theirs again');
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(heard.sort()).toEqual(['listen', 'listen', 'session', 'session']);
        await listen.close();
      } finally {
        await listener.close();
        await subscriber.close();
      }
    });

    it("a 2026-07-28 listen follows a 2025 upstream's resource through resources/subscribe", async () => {
      const uri = await served('watched', 'memo://board');
      const client = await answering(t);
      try {
        const heard: string[] = [];
        client.setNotificationHandler('notifications/resources/updated', (note) => {
          heard.push(note.params.uri);
        });
        const listen = await client.listen({ resourceSubscriptions: [uri] });
        expect(listen.honoredFilter.resourceSubscriptions).toEqual([uri]);
        expect(watched.subscribed).toEqual(['memo://board']);
        await client.callTool({ name: watchedNames.get('touch_board')!, arguments: {} });
        await waitFor(() => heard.length > 0, 'the listen to hear the update');
        expect(heard).toEqual([uri]);
        await listen.close();
        // The last listen gone, the upstream connection that followed it closes.
        await waitFor(() => watched.subscribed.length === 0, 'the upstream subscription to end');
      } finally {
        await client.close();
      }
    });

    it('a 2025 session subscribes to a resource of a 2026-07-28-only upstream; only it hears', async () => {
      const uri = await served('modern', 'test://watched-resource');
      const subscriber = await legacyClient(t);
      const other = await legacyClient(t);
      try {
        const heard: string[] = [];
        subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
          heard.push(note.params.uri);
        });
        let otherHeard = 0;
        other.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
          otherHeard++;
        });
        await subscriber.subscribeResource({ uri });
        await touch();
        await waitFor(() => heard.length > 0, 'the session to hear the update');
        expect(heard).toEqual([uri]);
        expect(otherHeard).toBe(0);
        await subscriber.unsubscribeResource({ uri });
      } finally {
        await subscriber.close();
        await other.close();
      }
    });
  });

  describe('a 2025 client, a 2026-07-28 upstream', () => {
    it('turns each round into real requests on the session, declined ones too', async () => {
      const client = await legacyClient(t);
      try {
        const call = (name: string, args: Record<string, unknown> = {}) =>
          client.callTool({ name: modernNames.get(name)!, arguments: args });
        expect(text(await call('test_input_required_result_elicitation'))).toBe('Hello, Ada!');
        expect(text(await call('test_input_required_result_sampling'))).toMatch(/Paris/);
        expect(text(await call('test_input_required_result_list_roots'))).toBe(
          'Roots: file:///work',
        );
        expect(text(await call('test_input_required_result_multiple_inputs'))).toBe(
          'All three inputs received',
        );
        expect(text(await call('test_input_required_result_multi_round'))).toBe('Ada likes blue');
        expect(text(await call('test_elicitation', { message: 'please decline' }))).toBe(
          'User response: action=decline, content={}',
        );
        const overStdio = await client.callTool({
          name: modernStdioNames.get('confirm')!,
          arguments: {},
        });
        expect(text(overStdio)).toBe('confirmed: accept');
      } finally {
        await client.close();
      }
    });

    it("keeps a round's state and answers a 2025 client sends from the core and the upstream", async () => {
      const client = await legacyClient(t);
      try {
        const params = {
          name: modernNames.get('test_input_required_result_elicitation')!,
          arguments: {},
          inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } },
          requestState: 'forged',
        };
        const injected = await client.callTool(params);
        // The upstream asked its round of the client, as for any call: nothing answered it before.
        expect(text(injected)).toBe('Hello, Ada!');
      } finally {
        await client.close();
      }
    });
  });
});

describeOnPostgres('Translation between the eras across two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let old: UpstreamFixture;
  let modern: ModernEverythingServer;
  let oldNames: Map<string, string>;
  let modernNames: Map<string, string>;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startReplica(a);
    old = await startUpstream({ name: 'old', tools: askingTools([]) });
    modern = await startModernEverythingServer({ legacy: 'reject' });
    oldNames = await register(a, { name: 'Old', url: old.url });
    modernNames = await register(a, { name: 'Modern', url: modern.url });
  });

  afterAll(async () => {
    await b.close();
    await a.close();
    await old.close();
    await modern.close();
  });

  /** Sends requests to A and what carries the client's answers to B. */
  const split =
    (hits: string[], answers: (body: string) => boolean): Fetch =>
    (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      const target = body && answers(body) ? b : a;
      hits.push(target === a ? 'a' : 'b');
      const url = new URL(String(input instanceof Request ? input.url : input));
      return fetch(new URL(url.pathname + url.search, target.baseUrl), init);
    };

  it("a 2026-07-28 client's retry lands on the replica that does not hold the parked call", async () => {
    const hits: string[] = [];
    const client = await answering(a, {
      fetchVia: split(hits, (body) => body.includes('"inputResponses"')),
    });
    try {
      const sampled = await client.callTool({ name: oldNames.get('summarize')!, arguments: {} });
      expect(text(sampled)).toBe('sampled Paris');
      const two = await client.callTool({ name: oldNames.get('two_questions')!, arguments: {} });
      expect(text(two)).toBe('Ada likes blue');
      expect(hits.filter((hit) => hit === 'b').length).toBeGreaterThanOrEqual(3);
    } finally {
      await client.close();
    }
  });

  it("a 2025 client's answer lands on the replica that does not hold the call", async () => {
    const hits: string[] = [];
    const client = await legacyClient(
      a,
      split(hits, (body) => body.includes('"result"')),
    );
    try {
      const result = await client.callTool({
        name: modernNames.get('test_input_required_result_elicitation')!,
        arguments: {},
      });
      expect(text(result)).toBe('Hello, Ada!');
      expect(hits).toContain('b');
    } finally {
      await client.close();
    }
  });
});
