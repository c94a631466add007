import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { z } from 'zod';
import { AuditTrail } from '../../src/audit/audit-trail.service';
import { startTasksServer, type TasksServer } from '../fixtures/tasks-server';
import { connectClient, rpcError } from '../support/mcp-client';
import { type Fetch, MODERN, rawCall, rawListen } from '../support/modern-client';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { createUser, pageSession } from '../support/identities';
import { tableOf, textOf } from '../support/html-text';
import { ADMIN_PASSWORD, startReplica, startTestApp, type TestApp } from '../support/test-app';
import { type SseReader } from '../support/sse';
import { waitFor } from '../support/wait-for';
import { secretRedactingServer } from '../support/hooked-server';

const TASKS = 'io.modelcontextprotocol/tasks';
const AnyResult = z.object({}).passthrough();
const Task = z
  .object({ taskId: z.string(), status: z.string(), resultType: z.string().optional() })
  .passthrough();

type TaskResult = z.infer<typeof Task> & {
  result?: { content: { text: string }[] };
  inputRequests?: Record<string, { method: string }>;
};

/**
 * What a client of the Tasks extension adds to the SDK's HTTP requests: `Mcp-Name` set to the
 * task id on tasks/* (SEP-2663), which the SDK does not know to send.
 */
const taskRouting =
  (via: Fetch = fetch): Fetch =>
  async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null;
    const message = body as { method?: string; params?: { taskId?: unknown } } | null;
    if (message?.method?.startsWith('tasks/') && typeof message.params?.taskId === 'string') {
      const headers = new Headers(init?.headers);
      headers.set('mcp-name', message.params.taskId);
      return via(input, { ...init, headers });
    }
    return via(input, init);
  };

/** The SDK v2 client on 2026-07-28, declaring the Tasks extension unless told not to. */
async function tasksClient(
  app: TestApp,
  options: { token?: string; declare?: boolean; via?: Fetch; path?: string } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'tasks-test', version: '1.0.0' },
    {
      capabilities: {
        elicitation: { form: {} },
        ...(options.declare === false ? {} : { extensions: { [TASKS]: {} } }),
      },
      versionNegotiation: { mode: { pin: MODERN } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.path ?? '/mcp', app.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${options.token ?? app.token}` } },
      fetch: taskRouting(options.via),
    }),
  );
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } }, AnyResult);

/**
 * A tools/call that may answer a task, on the wire: the SDK v2 client refuses any `resultType`
 * but `complete` and `input_required` on tools/call (it has no Tasks support).
 */
async function taskCall(
  app: TestApp,
  name: string,
  args: Record<string, unknown> = {},
  more: Record<string, unknown> = {},
): Promise<z.infer<typeof Task> & Record<string, unknown>> {
  const answer = await rawCall(
    app,
    'create',
    { name, arguments: args, ...more },
    { capabilities: { elicitation: { form: {} }, extensions: { [TASKS]: {} } } },
  );
  if (!answer.body.result) throw new Error(JSON.stringify(answer.body));
  return answer.body.result as never;
}
const task = (client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params }, AnyResult) as Promise<TaskResult>;

async function settled(client: Client, taskId: string, until = 'completed'): Promise<TaskResult> {
  let last: TaskResult | undefined;
  await waitFor(async () => {
    last = await task(client, 'tasks/get', { taskId });
    return last.status === until;
  }, `task ${taskId} to be ${until}`);
  return last as TaskResult;
}

/** A raw `subscriptions/listen` (id `listen-1`), declaring the Tasks extension unless told. */
async function openListen(
  app: TestApp,
  notifications: Record<string, unknown>,
  capabilities: Record<string, unknown> = { extensions: { [TASKS]: {} } },
  token = app.token,
  path = '/mcp',
): Promise<SseReader> {
  const { response, reader } = await rawListen(
    app.baseUrl,
    token,
    notifications,
    capabilities,
    path,
  );
  expect(response.status).toBe(200);
  return reader;
}

/** The `notifications/tasks` params a listen hears, up to the first of status `until`. */
async function taskStatus(reader: SseReader, until: string): Promise<Record<string, unknown>[]> {
  const heard: Record<string, unknown>[] = [];
  for (;;) {
    const message = (await reader.nextMessage())?.message;
    if (!message) throw new Error(`the listen ended before a task was ${until}`);
    if (message.method !== 'notifications/tasks') continue;
    const params = message.params as Record<string, unknown>;
    heard.push(params);
    if (params.status === until) return heard;
  }
}

/** The messages a listen hears within `ms`. */
async function quiet(reader: SseReader, ms = 700): Promise<Record<string, unknown>[]> {
  const heard: Record<string, unknown>[] = [];
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const next = await reader.nextMessage(deadline - Date.now()).catch(() => 'quiet' as const);
    if (next === null) break;
    if (next !== 'quiet') heard.push(next.message);
  }
  return heard;
}

/** Registers the upstream as a gateway; its tools' original names to the names /mcp serves. */
async function register(app: TestApp, url: string, names: Map<string, string>): Promise<void> {
  const gateway = await app.api().post('/api/v1/gateways').send({ name: 'Jobs', url }).expect(201);
  expect(gateway.body.status).toBe('healthy');
  const tools = await app.api().get('/api/v1/tools').query({ gatewayId: gateway.body.id });
  for (const item of tools.body.items as { name: string; originalName: string }[])
    names.set(item.originalName, item.name);
}

describe('the Tasks extension through Portico', () => {
  let t: TestApp;
  let upstream: TasksServer;
  let client: Client;
  const names = new Map<string, string>();
  const tool = (original: string) => names.get(original) as string;

  beforeAll(async () => {
    upstream = await startTasksServer();
    t = await startTestApp();
    await register(t, upstream.url, names);
    client = await tasksClient(t);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await upstream?.close();
  });

  it('advertises the extension where an upstream has it, and runs a task to its result', async () => {
    expect(
      (client.getServerCapabilities() as { extensions?: Record<string, unknown> }).extensions,
    ).toHaveProperty([TASKS]);
    const created = Task.parse(
      await taskCall(t, tool('slow_compute'), { seconds: 1, label: 'e2e' }),
    );
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.taskId).toMatch(/^pt1\./);
    const done = await settled(client, created.taskId);
    expect(done.taskId).toBe(created.taskId);
    expect(done.result?.content[0]?.text).toBe('Computed e2e in 1s');
    // 2025's tasks/result is a 2025 session's only (see mcp-tasks-2025): unknown on this wire.
    const result = await fetch(new URL('/mcp', t.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tasks/result',
        'mcp-name': created.taskId,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'result-1',
        method: 'tasks/result',
        params: {
          taskId: created.taskId,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          },
        },
      }),
    });
    expect(((await result.json()) as { error?: { code: number } }).error?.code).toBe(-32601);
  });

  it.each([
    ['none', 'the upstream created a task whose taskId is no non-empty string'],
    ['number', 'the upstream created a task whose taskId is no non-empty string'],
    ['long', "the upstream's taskId is 600 characters, more than 512"],
  ])('answers a task whose id is broken (%s) as the upstream speaking badly', async (id, why) => {
    const answer = await rawCall(
      t,
      `broken-${id}`,
      { name: tool('broken_task'), arguments: { id } },
      { capabilities: { extensions: { [TASKS]: {} } } },
    );
    expect(answer.body.error).toEqual({
      code: -32012,
      message: `Upstream 'jobs' answered with a message Portico cannot use: ${why}`,
    });
  });

  it("relays a task's input requests and the answers to them", async () => {
    const created = Task.parse(await taskCall(t, tool('confirm_delete'), { filename: 'a.txt' }));
    const asking = await settled(client, created.taskId, 'input_required');
    const [key, asked] = Object.entries(asking.inputRequests ?? {})[0] ?? [];
    expect(asked?.method).toBe('elicitation/create');
    await task(client, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { confirm: true } } },
    });
    expect((await settled(client, created.taskId)).result?.content[0]?.text).toBe('Deleted a.txt');
  });

  it('composes with an input round before the task (MRTR, then a task)', async () => {
    const first = await taskCall(t, tool('test_tool_with_task'));
    expect(first).toMatchObject({ resultType: 'input_required' });
    expect(first).not.toHaveProperty('taskId');
    const second = Task.parse(
      await taskCall(
        t,
        tool('test_tool_with_task'),
        {},
        {
          inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
          ...(first.requestState ? { requestState: first.requestState } : {}),
        },
      ),
    );
    expect(second).not.toHaveProperty('requestState');
    expect(second.resultType).toBe('task');
    expect((await settled(client, second.taskId)).result?.content[0]?.text).toBe('Hello, Alice!');
  });

  it('gives a client that did not declare the extension its error, and no task', async () => {
    const plain = await tasksClient(t, { declare: false });
    expect(
      (client.getServerCapabilities() as { extensions?: Record<string, unknown> }).extensions,
    ).toHaveProperty([TASKS]);
    await expect(task(plain, 'tasks/get', { taskId: 'any' })).rejects.toMatchObject({
      code: -32021,
    });
    await expect(call(plain, tool('failing_job'))).rejects.toMatchObject({ code: -32021 });
    const sync = await call(plain, tool('slow_compute'), { seconds: 0 });
    expect(sync).toMatchObject({ content: [{ text: 'Computed result in 0s' }] });
    expect(sync).not.toHaveProperty('taskId');
    await plain.close();
  });

  it("offers a 2025 session 2025's tasks (see mcp-tasks-2025), not the extension", async () => {
    const legacy = await connectClient(t.baseUrl, {
      token: t.token,
      capabilities: { extensions: { [TASKS]: {} } },
    });
    expect(legacy.getServerCapabilities()).not.toHaveProperty('extensions');
    expect(legacy.getServerCapabilities()?.tasks).toBeDefined();
    const sync = await legacy.callTool({ name: tool('slow_compute'), arguments: { seconds: 0 } });
    expect(sync).not.toHaveProperty('taskId');
    const error = await rpcError(
      legacy.request({ method: 'tasks/get', params: { taskId: 'x' } }, z.object({})),
    );
    expect(error.code).toBe(-32602);
    // The same principal on the same endpoint: a task made on 2026-07-28 is known on 2025 too.
    const created = Task.parse(await taskCall(t, tool('slow_compute'), { seconds: 0 }));
    await settled(client, created.taskId);
    const seen = await legacy.request(
      { method: 'tasks/get', params: { taskId: created.taskId } },
      AnyResult,
    );
    expect(seen).toMatchObject({ taskId: created.taskId, status: 'completed', ttl: 60_000 });
    await legacy.close();
  });

  it('refuses task status on a listen to a client that did not declare the extension', async () => {
    const refused = await openListen(t, { toolsListChanged: true, taskIds: ['pt1.any'] }, {});
    expect((await refused.nextMessage())?.message).toMatchObject({
      id: 'listen-1',
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
    });
    refused.drop();
    // Declared, but no task of this principal: acknowledged without it.
    const declared = await openListen(t, { toolsListChanged: true, taskIds: ['pt1.any'] });
    const acknowledged = (await declared.nextMessage())?.message;
    expect(acknowledged).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true } },
    });
    expect(JSON.stringify(acknowledged)).not.toContain('taskIds');
    declared.drop();
  });

  it("passes a task's result through its server's hooks, fetched or heard", async () => {
    const slow = (await t.api().get('/api/v1/tools').query({ q: 'slow_compute' }).expect(200)).body
      .items[0] as { id: string };
    const path = await secretRedactingServer(t, [slow.id]);
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const created = await rawCall(
      t,
      'hooked',
      { name: tool('slow_compute'), arguments: { seconds: 1, label: secret } },
      { path, capabilities: { extensions: { [TASKS]: {} } } },
    );
    const { taskId } = Task.parse(created.body.result);
    const listen = await openListen(t, { taskIds: [taskId] }, undefined, t.token, path);
    expect((await listen.nextMessage())?.message).toMatchObject({
      params: { notifications: { taskIds: [taskId] } },
    });
    const heard = (await taskStatus(listen, 'completed')).at(-1)!;
    listen.drop();
    const hooked = await tasksClient(t, { path });
    const fetched = await settled(hooked, taskId);
    await hooked.close();
    for (const seen of [heard.result, fetched.result]) {
      expect(seen).toEqual({ content: [{ type: 'text', text: expect.any(String) }] });
      expect(JSON.stringify(seen)).toContain('[redacted:aws-access-key-id]');
      expect(JSON.stringify(seen)).not.toContain(secret);
    }
  });

  it('lets a task go on only while its caller may still use its tool', async () => {
    const created = Task.parse(await taskCall(t, tool('confirm_delete'), { filename: 'c.db' }));
    const asking = await settled(client, created.taskId, 'input_required');
    const [key] = Object.keys(asking.inputRequests ?? {});
    const answer = (confirm: boolean) => ({
      taskId: created.taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { confirm } } },
    });
    const policy = await t
      .api()
      .post('/api/v1/policies')
      .send({
        name: 'no-deletes',
        expression: `tool.name == "${tool('confirm_delete')}"`,
        effect: 'deny',
      })
      .expect(201);
    try {
      await waitFor(
        () =>
          task(client, 'tasks/get', created).then(
            () => false,
            (error: { code?: number }) => error.code === -32602,
          ),
        'the task to be unknown under the deny',
      );
      for (const [method, params] of [
        ['tasks/update', answer(true)],
        ['tasks/cancel', created],
      ] as const)
        await expect(task(client, method, params)).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('Task not found'),
        });
      const listen = await openListen(t, { taskIds: [created.taskId] });
      const acknowledged = (await listen.nextMessage())?.message;
      expect(acknowledged).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      expect(JSON.stringify(acknowledged)).not.toContain('taskIds');
      listen.drop();
    } finally {
      await t.api().delete(`/api/v1/policies/${policy.body.id}`).expect(204);
    }
    // Nothing reached the upstream meanwhile: the task still waits for its answer.
    await waitFor(
      async () => (await task(client, 'tasks/get', created).catch(() => null)) !== null,
      'the task to be known again',
    );
    expect((await task(client, 'tasks/get', created)).status).toBe('input_required');
    await task(client, 'tasks/update', answer(false));
    expect((await settled(client, created.taskId)).result?.content[0]?.text).toBe('Kept c.db');
  });

  it("relays a task's status on a listen that names it, with the client's id", async () => {
    const created = Task.parse(await taskCall(t, tool('confirm_delete'), { filename: 'b.txt' }));
    const asking = await settled(client, created.taskId, 'input_required');
    const listen = await openListen(t, { taskIds: [created.taskId, 'pt1.made-up'] });
    // Listens that must hear nothing of it: another principal naming it, and a client that did
    // not declare the extension (so cannot name tasks) listening for everything else.
    const carol = (await createUser(t, 'carol', 'admin')).token;
    const other = await openListen(t, { taskIds: [created.taskId] }, undefined, carol);
    const plain = await openListen(t, { toolsListChanged: true }, {});
    expect((await listen.nextMessage())?.message).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [created.taskId] } },
    });
    const otherAck = (await other.nextMessage())?.message;
    expect(otherAck).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    expect(JSON.stringify(otherAck)).not.toContain('taskIds');
    expect((await plain.nextMessage())?.message).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
    });

    const upstreamIds = new Set<string>();
    const off = upstream.onStatus((shown) => upstreamIds.add(shown.taskId as string));
    const [key] = Object.keys(asking.inputRequests ?? {});
    await task(client, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { confirm: false } } },
    });
    const heard = await taskStatus(listen, 'completed');
    expect(heard.map((params) => params.status)).toEqual(['working', 'completed']);
    for (const params of heard) {
      expect(params.taskId).toBe(created.taskId);
      expect(params._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 'listen-1' });
    }
    // What tasks/get says of it, field for field, but for tasks/get's own resultType.
    const {
      resultType: _get,
      _meta: _getMeta,
      ...polled
    } = await task(client, 'tasks/get', {
      taskId: created.taskId,
    });
    const { _meta: _heardMeta, ...completed } = heard[1]!;
    expect(completed).toEqual(polled);
    expect(completed).toMatchObject({ result: { content: [{ text: 'Kept b.txt' }] } });
    // The upstream's own id is nowhere on the listen.
    expect(upstreamIds.size).toBeGreaterThan(0);
    for (const id of upstreamIds) expect(JSON.stringify(heard)).not.toContain(id);
    off();
    expect(await quiet(other)).toEqual([]);
    expect((await quiet(plain)).filter((m) => m.method === 'notifications/tasks')).toEqual([]);
    for (const reader of [listen, other, plain]) reader.drop();
  });

  it("records a task's calls under one task in the audit trail", async () => {
    const created = Task.parse(await taskCall(t, tool('slow_compute'), { seconds: 0 }));
    await settled(client, created.taskId);
    await task(client, 'tasks/cancel', { taskId: created.taskId });
    await t.app.get(AuditTrail).flush();
    const calls = await t
      .api()
      .get('/api/v1/audit')
      .query({ action: 'tools/call', tool: tool('slow_compute') })
      .expect(200);
    const made = (calls.body.items as { task: string | null }[]).find((entry) => entry.task);
    const ref = made?.task as string;
    expect(ref).toHaveLength(22);
    const entries = await t.api().get('/api/v1/audit').query({ task: ref }).expect(200);
    const actions = (entries.body.items as { action: string; target: string; task: string }[])
      .map((entry) => entry.action)
      .sort();
    expect(actions[0]).toBe('tasks/cancel');
    expect(actions).toContain('tasks/get');
    expect(actions).toContain('tools/call');
    for (const entry of entries.body.items as { target: string; gateway: string }[])
      expect(entry).toMatchObject({ target: tool('slow_compute'), gateway: 'jobs' });
    // The upstream's own id is in no entry.
    expect(JSON.stringify(entries.body)).not.toContain(created.taskId);

    // The admin page: each entry links to its task's calls, which show together.
    const admin = await pageSession(t, 'admin', ADMIN_PASSWORD);
    const listed = await request(t.baseUrl)
      .get('/admin/audit')
      .query({ tool: tool('slow_compute') })
      .set('Cookie', admin.cookie)
      .expect(200);
    // Handlebars writes `=` in an attribute as `&#x3D;`.
    expect(listed.text.replaceAll('&#x3D;', '=')).toContain(`href="/admin/audit?task=${ref}"`);
    const taskPage = await request(t.baseUrl)
      .get('/admin/audit')
      .query({ task: ref })
      .set('Cookie', admin.cookie)
      .expect(200);
    const table = tableOf(taskPage.text, 'audit');
    const action = table.columns.indexOf('Action');
    expect(table.rows.map((row) => row[action]).sort()).toEqual(actions);
    expect(table.rows.every((row) => row[table.columns.indexOf('Task')] === ref)).toBe(true);
    expect(textOf(taskPage.text)).toContain('The calls of one task');
  });
});

describeOnPostgres('the Tasks extension across two replicas', () => {
  let t: TestApp;
  let replica: TestApp;
  let upstream: TasksServer;
  let client: Client;
  const names = new Map<string, string>();
  const tool = (original: string) => names.get(original) as string;

  beforeAll(async () => {
    upstream = await startTasksServer();
    t = await startTestApp();
    replica = await startReplica(t);
    await register(t, upstream.url, names);
    client = await tasksClient(t);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await replica?.close();
    await t?.close();
    await upstream?.close();
  });

  it('routes a task from either replica, and is an unknown task to another principal', async () => {
    const created = Task.parse(await taskCall(t, tool('slow_compute'), { seconds: 30 }));
    const onReplica = await tasksClient(replica);
    expect(await task(onReplica, 'tasks/get', { taskId: created.taskId })).toMatchObject({
      taskId: created.taskId,
      status: 'working',
    });
    // Another administrator: the same reach, another principal.
    const other = await tasksClient(t, { token: (await createUser(t, 'bob', 'admin')).token });
    for (const method of ['tasks/get', 'tasks/cancel'])
      await expect(task(other, method, { taskId: created.taskId })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    await expect(task(client, 'tasks/get', { taskId: 'made-up' })).rejects.toMatchObject({
      code: -32602,
    });
    expect(await task(onReplica, 'tasks/cancel', { taskId: created.taskId })).not.toHaveProperty(
      'status',
    );
    expect((await settled(client, created.taskId, 'cancelled')).status).toBe('cancelled');
    await Promise.all([onReplica.close(), other.close()]);
  });

  it("relays a task's status to a listen on the other replica, and only to its principal", async () => {
    // Made through replica A; the client listens on replica B.
    const created = Task.parse(await taskCall(t, tool('confirm_delete'), { filename: 'c.txt' }));
    const asking = await settled(client, created.taskId, 'input_required');
    const listen = await openListen(replica, { taskIds: [created.taskId] });
    const dave = (await createUser(t, 'dave', 'admin')).token;
    const other = await openListen(replica, { taskIds: [created.taskId] }, undefined, dave);
    const plain = await openListen(replica, { toolsListChanged: true }, {});
    expect((await listen.nextMessage())?.message).toMatchObject({
      params: { notifications: { taskIds: [created.taskId] } },
    });
    expect(JSON.stringify((await other.nextMessage())?.message)).not.toContain('taskIds');
    await plain.nextMessage();
    const [key] = Object.keys(asking.inputRequests ?? {});
    await task(client, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { confirm: true } } },
    });
    const heard = await taskStatus(listen, 'completed');
    expect(heard.at(-1)).toMatchObject({
      taskId: created.taskId,
      status: 'completed',
      result: { content: [{ text: 'Deleted c.txt' }] },
    });
    expect(await quiet(other)).toEqual([]);
    expect((await quiet(plain)).filter((m) => m.method === 'notifications/tasks')).toEqual([]);
    for (const reader of [listen, other, plain]) reader.drop();
  });
});
