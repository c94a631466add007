import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { AuditTrail } from '../../src/audit/audit-trail.service';
import { startTasksServer, type TasksServer } from '../fixtures/tasks-server';
import { echoTool, startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { connectClient, initializeRequest, postMcp, rpcError } from '../support/mcp-client';
import { createUser } from '../support/identities';
import { describeOnPostgres } from '../support/describe-on-postgres';
import { startReplica, startTestApp, type TestApp } from '../support/test-app';
import { secretRedactingServer } from '../support/hooked-server';

/** Registers the upstream as a gateway; its tools' original names to the names /mcp serves. */
async function register(
  app: TestApp,
  name: string,
  url: string,
  names: Map<string, { name: string; id: string }>,
): Promise<void> {
  const gateway = await app.api().post('/api/v1/gateways').send({ name, url }).expect(201);
  expect(gateway.body.status).toBe('healthy');
  const tools = await app.api().get('/api/v1/tools').query({ gatewayId: gateway.body.id });
  for (const item of tools.body.items as { name: string; originalName: string; id: string }[])
    names.set(item.originalName, item);
}

const textOf = (result: object) => (result as { content?: { text: string }[] }).content?.[0]?.text;

/**
 * A 2025-11-25 client (the SDK v1, its experimental tasks) running tasks through Portico against
 * an upstream of the Tasks extension (2026-07-28), which Portico translates.
 */
describe('2025-11-25 tasks through Portico, over the Tasks extension', () => {
  let t: TestApp;
  let upstream: TasksServer;
  let plain: UpstreamFixture;
  let client: Client;
  const names = new Map<string, { name: string; id: string }>();
  const tool = (original: string) => names.get(original)!.name;
  const clients: Client[] = [];
  const connect = async (options: { token?: string; path?: string } = {}) => {
    const connected = await connectClient(t.baseUrl, {
      token: options.token ?? t.token,
      ...(options.path ? { path: options.path } : {}),
      capabilities: { elicitation: { form: {} } },
    });
    clients.push(connected);
    return connected;
  };
  /** Calls the tool as a task, by hand: its CreateTaskResult. */
  const asTask = (on: Client, name: string, args: Record<string, unknown> = {}) =>
    on.request(
      { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );

  beforeAll(async () => {
    upstream = await startTasksServer();
    plain = await startUpstream({ name: 'plain', tools: [echoTool('echo', 'plain')] });
    t = await startTestApp();
    await register(t, 'Jobs', upstream.url, names);
    await register(t, 'Plain', plain.url, names);
    client = await connect();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
    await upstream?.close();
    await plain?.close();
  });

  it('offers tasks at initialize, and marks the tools that may run as one', async () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } });
    expect(capabilities).not.toHaveProperty('extensions');
    const { tools } = await client.listTools();
    const listed = new Map(tools.map((listedTool) => [listedTool.name, listedTool]));
    expect(listed.get(tool('slow_compute'))?.execution).toEqual({ taskSupport: 'optional' });
    expect(listed.get(tool('echo'))).not.toHaveProperty('execution');
  });

  it('runs a tool as a task to its result with the SDK client', async () => {
    const seen: string[] = [];
    let taskId = '';
    let text: string | undefined;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: tool('slow_compute'), arguments: { seconds: 1, label: 'e2e' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      seen.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') text = textOf(message.result);
      if (message.type === 'error') throw message.error;
    }
    expect(taskId).toMatch(/^pt1\./);
    expect(seen[0]).toBe('taskCreated');
    expect(seen).toContain('taskStatus');
    expect(text).toBe('Computed e2e in 1s');
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: 'completed', ttl: 60_000, pollInterval: 100 });
    expect(task).not.toHaveProperty('result');
  });

  it('waits in tasks/result for a task to end, and names the task in _meta', async () => {
    const { task } = await asTask(client, tool('slow_compute'), { seconds: 1, label: 'wait' });
    expect(task).toMatchObject({ status: 'working', ttl: 60_000 });
    expect(task.taskId).toMatch(/^pt1\./);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toBe('Computed wait in 1s');
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
  });

  it("passes a task's result through its server's hooks, as a call's", async () => {
    const path = await secretRedactingServer(t, [names.get('slow_compute')!.id]);
    const hooked = await connect({ path });
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const { task } = await asTask(hooked, tool('slow_compute'), { seconds: 0, label: secret });
    const result = await hooked.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toBe('Computed [redacted:aws-access-key-id] in 0s');
  });

  it("asks the client for a task's input in tasks/result, and sends its answer upstream", async () => {
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (elicit) => {
      asked.push(elicit.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    const { task } = await asTask(client, tool('confirm_delete'), { filename: 'a.txt' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(asked).toEqual(['Delete a.txt?']);
    expect(textOf(result)).toBe('Deleted a.txt');
  });

  it('asks an input round before the task as a request to the client, then makes the task', async () => {
    client.setRequestHandler(ElicitRequestSchema, (elicit) => {
      expect(elicit.params.message).toBe('What is your name?');
      return { action: 'accept', content: { name: 'Alice' } };
    });
    const { task } = await asTask(client, tool('test_tool_with_task'));
    expect(task.taskId).toMatch(/^pt1\./);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toBe('Hello, Alice!');
  });

  it("answers a failed task's tasks/result with its JSON-RPC error", async () => {
    const { task } = await asTask(client, tool('protocol_error_job'));
    const error = await rpcError(
      client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    );
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('The job broke down');
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('failed');
  });

  it('cancels a task, answering with the task', async () => {
    const { task } = await asTask(client, tool('slow_compute'), { seconds: 30 });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    const error = await rpcError(
      client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    );
    expect(error.message).toContain('cancelled');
  });

  it('is an unknown task to another principal, and tasks/list is not offered', async () => {
    const { task } = await asTask(client, tool('slow_compute'), { seconds: 30 });
    const other = await connect({ token: (await createUser(t, 'bob', 'admin')).token });
    const tasks = other.experimental.tasks;
    for (const call of [
      tasks.getTask(task.taskId),
      tasks.getTaskResult(task.taskId, CallToolResultSchema),
      tasks.cancelTask(task.taskId),
    ])
      expect(await rpcError(call)).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    expect((await rpcError(client.experimental.tasks.getTask('made-up'))).code).toBe(-32602);
    expect((await rpcError(client.experimental.tasks.listTasks())).code).toBe(-32601);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    await client.experimental.tasks.cancelTask(task.taskId);
  });

  it('leaves a call without params.task as it was', async () => {
    const result = await client.callTool({
      name: tool('slow_compute'),
      arguments: { seconds: 0, label: 'now' },
    });
    expect(result).not.toHaveProperty('task');
    expect(textOf(result)).toBe('Computed now in 0s');
  });

  it("records a task's calls under one task in the audit trail", async () => {
    const { task } = await asTask(client, tool('slow_compute'), { seconds: 0, label: 'audit' });
    await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await client.experimental.tasks.getTask(task.taskId);
    await t.app.get(AuditTrail).flush();
    const calls = await t
      .api()
      .get('/api/v1/audit')
      .query({ action: 'tasks/result', tool: tool('slow_compute') })
      .expect(200);
    const ref = (calls.body.items as { task: string | null }[])[0]?.task as string;
    expect(ref).toHaveLength(22);
    const entries = await t.api().get('/api/v1/audit').query({ task: ref }).expect(200);
    const actions = (entries.body.items as { action: string }[]).map((entry) => entry.action);
    expect(actions.sort()).toEqual(['tasks/get', 'tasks/result', 'tools/call']);
    for (const entry of entries.body.items as { target: string; gateway: string }[])
      expect(entry).toMatchObject({ target: tool('slow_compute'), gateway: 'jobs' });
  });

  it('offers no tasks to a session of a revision before 2025-11-25', async () => {
    const opened = await postMcp(`${t.baseUrl}/mcp`, t.token, initializeRequest(1, '2025-06-18'));
    const body = (await opened.json()) as { result: { protocolVersion: string } };
    expect(body.result.protocolVersion).toBe('2025-06-18');
    expect(body.result).toHaveProperty('capabilities.tools');
    expect(body.result).not.toHaveProperty('capabilities.tasks');
  });

  it('offers no tasks where no upstream declares the extension', async () => {
    const server = await request(t.baseUrl)
      .post('/api/v1/servers')
      .set('Authorization', `Bearer ${t.token}`)
      .send({ name: 'only-echo', toolIds: [names.get('echo')!.id] })
      .expect(201);
    const session = await connect({ path: `/servers/${server.body.id as string}/mcp` });
    expect(session.getServerCapabilities()).not.toHaveProperty('tasks');
    const { tools } = await session.listTools();
    expect(tools.map((listed) => listed.name)).toEqual([tool('echo')]);
    expect(tools[0]).not.toHaveProperty('execution');
    expect(textOf(await session.callTool({ name: tool('echo'), arguments: {} }))).toBe(
      'plain:echo',
    );
    // A task asked of a tool that cannot make one: the call, as 2025 lets a server answer.
    const answer = await session.request(
      { method: 'tools/call', params: { name: tool('echo'), arguments: {}, task: {} } },
      CallToolResultSchema,
    );
    expect(textOf(answer)).toBe('plain:echo');
    expect((await rpcError(session.experimental.tasks.getTask('x'))).code).toBe(-32601);
  });
});

describeOnPostgres('2025-11-25 tasks across two replicas', () => {
  let t: TestApp;
  let replica: TestApp;
  let upstream: TasksServer;
  const names = new Map<string, { name: string; id: string }>();
  const clients: Client[] = [];
  const connect = async (app: TestApp) => {
    const connected = await connectClient(app.baseUrl, { token: t.token });
    clients.push(connected);
    return connected;
  };

  beforeAll(async () => {
    upstream = await startTasksServer();
    t = await startTestApp();
    replica = await startReplica(t);
    await register(t, 'Jobs', upstream.url, names);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await replica?.close();
    await t?.close();
    await upstream?.close();
  });

  it("answers a task made through one replica from the other's session", async () => {
    const made = await connect(t);
    const { task } = await made.request(
      {
        method: 'tools/call',
        params: {
          name: names.get('slow_compute')!.name,
          arguments: { seconds: 1, label: 'far' },
          task: {},
        },
      },
      CreateTaskResultSchema,
    );
    const elsewhere = await connect(replica);
    expect(await elsewhere.experimental.tasks.getTask(task.taskId)).toMatchObject({
      taskId: task.taskId,
      status: 'working',
    });
    const result = await elsewhere.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    );
    expect(textOf(result)).toBe('Computed far in 1s');
  });
});
