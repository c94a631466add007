import { type UpstreamClient } from '../../upstream/upstream-client';
import { type UpstreamEras } from '../../upstream/eras/upstream-eras.service';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type Directories } from '../directory/directories.service';
import { RpcError } from '../protocol/mcp-errors';
import { type McpRequest } from '../protocol/mcp-request';
import { TaskCalls, type TaskServed } from './task-calls';
import { relayedCapabilities, TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { sharedAffinity } from '../../upstream/upstream-client';
import { TaskIdSealer } from './task-id-seal';
import { servingGateways } from '../../../test/support/task-access';

const DECLARING = { extensions: { [TASKS_EXTENSION]: {} } };
const sealer = new TaskIdSealer('t'.repeat(40));

/** The server's `after` hooks in these tests, where they have any: one secret is cut out. */
const redacting = (result: unknown): unknown =>
  JSON.parse(JSON.stringify(result).replaceAll('hunter2', '[redacted]'));

function setUp(
  gatewayIds = ['gw-1'],
  answer: Record<string, unknown> = {
    taskId: 'upstream-1',
    status: 'working',
    resultType: 'complete',
  },
  hooks?: (result: unknown) => unknown,
) {
  const sent: { gatewayId: string; method: string; params: unknown; capabilities: unknown }[] = [];
  const client = {
    target: jest.fn((gatewayId: string) =>
      Promise.resolve({ gatewayId, slug: `slug-${gatewayId}` }),
    ),
    call: jest.fn(
      (
        gatewayId: string,
        affinity: { capabilities: unknown },
        work: (connection: UpstreamConnection) => Promise<unknown>,
      ) =>
        work({
          request: (method: string, params: unknown) => {
            sent.push({ gatewayId, method, params, capabilities: affinity.capabilities });
            return Promise.resolve(answer);
          },
        } as unknown as UpstreamConnection),
    ),
  };
  const eras = { verdict: () => null } as unknown as UpstreamEras;
  // What the scope serves is servingGateways' to judge.
  const directory = {} as ScopeDirectory;
  const tasks = new TaskCalls(
    sealer,
    client as unknown as UpstreamClient,
    eras,
    servingGateways(gatewayIds, hooks),
    { get: () => Promise.resolve(directory) } as unknown as Directories,
  );
  const request = (
    method: string,
    params: Record<string, unknown>,
    options: { subject?: string; capabilities?: unknown; version?: string } = {},
  ) => {
    const declared = (options.capabilities ?? DECLARING) as Record<string, unknown>;
    return {
      method,
      params,
      principal: { subject: options.subject ?? 'user:alice', name: 'alice' },
      scope: { kind: 'server', serverId: 's1' },
      meta: { protocolVersion: options.version ?? '2026-07-28', clientCapabilities: declared },
      // As the stateless wire makes it from what the request declared.
      affinity: sharedAffinity({ elicitation: {}, ...declared }, { userId: null }),
      signal: new AbortController().signal,
    } as unknown as McpRequest;
  };
  return { tasks, directory, request, sent };
}

/** A CreateTaskResult from gw-1 as the client receives it through `tasks`. */
function created(setup: ReturnType<typeof setUp>, subject = 'user:alice'): string {
  const served: TaskServed = { gateway: 'slug-gw-1' };
  const result = setup.tasks.created(
    setup.request('tools/call', { name: 'jobs__slow' }, { subject }),
    { resultType: 'task', taskId: 'upstream-1', status: 'working' },
    { gatewayId: 'gw-1', tool: 'jobs__slow' },
    served,
  ) as { taskId: string };
  expect(served.task).toHaveLength(22);
  return result.taskId;
}

async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string; data?: unknown }> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(error)}`);
  return { code: error.code, message: error.message, data: error.data };
}

describe('TaskCalls', () => {
  it("leaves out a CreateTaskResult's inline result, which tasks/get delivers through the hooks", () => {
    const setup = setUp();
    const result = setup.tasks.created(
      setup.request('tools/call', { name: 'jobs__slow' }),
      { resultType: 'task', taskId: 'upstream-1', status: 'completed', result: { content: [] } },
      { gatewayId: 'gw-1', tool: 'jobs__slow' },
      { gateway: 'slug-gw-1' },
    );
    expect(result).not.toHaveProperty('result');
    expect(result).toMatchObject({ status: 'completed' });
  });

  it("passes a task's own words (status message, error) by the hooks, as its result", async () => {
    const setup = setUp(
      ['gw-1'],
      {
        taskId: 'upstream-1',
        status: 'failed',
        statusMessage: 'signed in as hunter2',
        error: { code: -32603, message: 'hunter2 was refused' },
        result: { content: [{ type: 'text', text: 'hunter2' }] },
        resultType: 'complete',
      },
      redacting,
    );
    const id = created(setup);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const told = await setup.tasks.serve(setup.request(method, { taskId: id }), setup.directory, {
        gateway: '',
      });
      expect(JSON.stringify(told)).not.toContain('hunter2');
      expect(told).toMatchObject({ taskId: id, statusMessage: 'signed in as [redacted]' });
    }
  });

  it('ends a 2025 tasks/result wait at the poll after the tool stops being served to the caller', async () => {
    const gatewayIds = ['gw-1'];
    const setup = setUp(gatewayIds);
    const id = created(setup);
    const waiting = setup.tasks.serve(
      { ...setup.request('tasks/result', { taskId: id }), sink: {} } as McpRequest,
      setup.directory,
      { gateway: '' },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    gatewayIds.pop();
    expect(await refusal(waiting)).toMatchObject({ message: expect.stringContaining('not found') });
    expect(setup.sent.filter((sent) => sent.method === 'tasks/get')).toHaveLength(1);
  });

  it("wraps an upstream's CreateTaskResult id", () => {
    const setup = setUp();
    const id = created(setup);
    expect(id).toMatch(/^pt1\./);
    expect(id).not.toContain('upstream-1');
  });

  it('routes tasks/get, tasks/update and tasks/cancel to the upstream with its own id', async () => {
    const setup = setUp();
    const id = created(setup);
    const served: TaskServed = { gateway: '' };
    const got = await setup.tasks.serve(
      setup.request('tasks/get', { taskId: id }),
      setup.directory,
      served,
    );
    expect(got).toMatchObject({ taskId: id, status: 'working' });
    expect(served).toMatchObject({ gateway: 'slug-gw-1', task: expect.any(String) });
    // Whichever method answers with the task, the client sees its own id, never the upstream's.
    const updated = await setup.tasks.serve(
      setup.request('tasks/update', { taskId: id, inputResponses: { k: { action: 'accept' } } }),
      setup.directory,
      { gateway: '' },
    );
    const cancelled = await setup.tasks.serve(
      setup.request('tasks/cancel', { taskId: id }),
      setup.directory,
      { gateway: '' },
    );
    expect([updated.taskId, cancelled.taskId]).toEqual([id, id]);
    expect(setup.sent).toEqual([
      {
        gatewayId: 'gw-1',
        method: 'tasks/get',
        params: { taskId: 'upstream-1' },
        capabilities: { elicitation: {}, ...DECLARING },
      },
      {
        gatewayId: 'gw-1',
        method: 'tasks/update',
        params: { taskId: 'upstream-1', inputResponses: { k: { action: 'accept' } } },
        capabilities: { elicitation: {}, ...DECLARING },
      },
      {
        gatewayId: 'gw-1',
        method: 'tasks/cancel',
        params: { taskId: 'upstream-1' },
        capabilities: { elicitation: {}, ...DECLARING },
      },
    ]);
  });

  it("answers another principal's id as it answers a made-up one: an unknown task", async () => {
    const setup = setUp();
    const id = created(setup);
    for (const request of [
      setup.request('tasks/get', { taskId: id }, { subject: 'user:bob' }),
      setup.request('tasks/cancel', { taskId: id }, { subject: 'user:bob' }),
      setup.request('tasks/get', { taskId: 'tasks-conformance-nonexistent-12345' }),
      setup.request('tasks/get', { taskId: `${id.slice(0, -2)}AA` }),
      setup.request('tasks/get', {}),
    ])
      expect(await refusal(setup.tasks.serve(request, setup.directory, { gateway: '' }))).toEqual({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
        data: undefined,
      });
    expect(setup.sent).toEqual([]);
  });

  it('answers an id whose upstream left the virtual server as an unknown task', async () => {
    const setup = setUp(['gw-2']);
    const id = created(setup);
    expect(
      (
        await refusal(
          setup.tasks.serve(setup.request('tasks/get', { taskId: id }), setup.directory, {
            gateway: '',
          }),
        )
      ).code,
    ).toBe(-32602);
  });

  it('refuses tasks/* with -32021 to a request that did not declare the extension, and to 2025 sessions', async () => {
    const setup = setUp();
    const id = created(setup);
    for (const request of [
      setup.request('tasks/get', { taskId: id }, { capabilities: {} }),
      setup.request(
        'tasks/update',
        { taskId: id, inputResponses: {} },
        { capabilities: { extensions: {} } },
      ),
      setup.request('tasks/cancel', { taskId: id }, { version: '2025-11-25' }),
    ])
      expect(
        await refusal(setup.tasks.serve(request, setup.directory, { gateway: '' })),
      ).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
  });

  it('states the extension upstream only for a request without a session that declared it', () => {
    const declaring = { elicitation: {}, ...DECLARING };
    const stateless = sharedAffinity(declaring, { userId: null });
    expect(stateless.capabilities).toEqual(declaring);
    // Declarations that differ in the extension do not share connections.
    expect(sharedAffinity({ elicitation: {} }, { userId: null }).key).not.toBe(stateless.key);
    // A 2025 session's declaration never carries it upstream.
    expect(relayedCapabilities(declaring)).toEqual({ elicitation: {} });
  });

  it('bounds what a tasks/update relays', async () => {
    const setup = setUp();
    const id = created(setup);
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, {}]));
    for (const inputResponses of [many, 'no', null, []])
      expect(
        (
          await refusal(
            setup.tasks.serve(
              setup.request('tasks/update', { taskId: id, inputResponses }),
              setup.directory,
              { gateway: '' },
            ),
          )
        ).code,
      ).toBe(-32602);
  });
});
