import { type JSONRPCRequest } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { type Directories } from '../directory/directories.service';
import { RpcError } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { TaskIdSealer } from './task-id-seal';
import { servingGateways } from '../../../test/support/task-access';
import { TaskListens } from './task-listens';
import { type TaskFollower, type TaskWatch } from './task-watch';

const sealer = new TaskIdSealer('t'.repeat(40));
const scope = { kind: 'server', serverId: 's1' } as unknown as McpScope;
const alice = { subject: 'user:alice', userId: 'alice' } as unknown as Principal;

function setUp(
  gatewayIds = ['gw-1'],
  overBound = (_gatewayId: string) => false,
  hooks?: (result: unknown) => unknown,
) {
  const followed: {
    gatewayId: string;
    owner: string;
    followers: ReadonlyMap<string, TaskFollower>;
    stop: jest.Mock;
  }[] = [];
  const watch = {
    follow: jest.fn(
      (
        gatewayId: string,
        _actingFor: unknown,
        owner: string,
        followers: ReadonlyMap<string, TaskFollower>,
      ) => {
        if (overBound(gatewayId))
          return Promise.reject(new RpcError(-32600, 'This principal follows too many tasks'));
        const stop = jest.fn();
        followed.push({ gatewayId, owner, followers, stop });
        return Promise.resolve({
          followed: [...followers.keys()].filter((id) => id !== 'up-refused'),
          stop,
        });
      },
    ),
  };
  // What the scope serves is servingGateways' to judge.
  const directories = { get: () => Promise.resolve({}) };
  const listens = new TaskListens(
    sealer,
    directories as unknown as Directories,
    watch as unknown as TaskWatch,
    servingGateways(gatewayIds, hooks),
  );
  return { listens, followed };
}

const sealed = (
  taskId: string,
  gatewayId = 'gw-1',
  subject = 'user:alice',
  scopeKey = 'server:s1',
) => sealer.seal({ subject, scope: scopeKey }, { gatewayId, taskId, tool: 'jobs-slow' });

const listen = (notifications: unknown, capabilities: unknown): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'subscriptions/listen',
  params: {
    notifications,
    _meta: { 'io.modelcontextprotocol/clientCapabilities': capabilities },
  },
});

describe('TaskListens', () => {
  it('refuses taskIds without the extension declared (-32021), and nothing else', () => {
    const { listens } = setUp();
    expect(listens.refusal(listen({ taskIds: ['x'] }, {}))).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
    expect(
      listens.refusal(listen({ taskIds: ['x'] }, { extensions: { [TASKS_EXTENSION]: {} } })),
    ).toBeNull();
    expect(listens.refusal(listen({ toolsListChanged: true }, {}))).toBeNull();
  });

  it("follows the principal's own tasks by the upstream's id, and relays them with the client's", async () => {
    const { listens, followed } = setUp(['gw-1', 'gw-2']);
    const mine = sealed('up-1');
    const refused = sealed('up-refused');
    const elsewhere = sealed('up-2', 'gw-2');
    const others = sealed('up-3', 'gw-1', 'user:bob');
    const otherEndpoint = sealed('up-4', 'gw-1', 'user:alice', 'all');
    const outside = sealed('up-5', 'gw-9');
    const heard: Record<string, unknown>[] = [];
    const result = await listens.follow(
      scope,
      alice,
      [others, elsewhere, mine, refused, otherEndpoint, outside, 'pt1.made-up'],
      { status: (task) => heard.push(task), lost: () => undefined },
    );
    expect(result.taskIds).toEqual([elsewhere, mine]);
    expect(
      followed
        .map(({ gatewayId, owner, followers }) => [gatewayId, owner, [...followers.keys()]])
        .sort(),
    ).toEqual([
      ['gw-1', 'user:alice', ['up-1', 'up-refused']],
      ['gw-2', 'user:alice', ['up-2']],
    ]);
    followed
      .find(({ gatewayId }) => gatewayId === 'gw-1')!
      .followers.get('up-1')!
      .status({
        taskId: 'up-1',
        status: 'completed',
        result: { content: [] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 7 },
      });
    // Each status is judged before it is told.
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([{ taskId: mine, status: 'completed', result: { content: [] } }]);
  });

  it("tells a task's own words by the hooks, and nothing of them when the hooks refuse", async () => {
    const hooks = (result: unknown) => {
      const text = JSON.stringify(result);
      if (text.includes('too big')) throw new RpcError(-32603, 'The result is over the limit');
      return JSON.parse(text.replaceAll('hunter2', '[redacted]')) as unknown;
    };
    const { listens, followed } = setUp(['gw-1'], () => false, hooks);
    const mine = sealed('up-1');
    const heard: Record<string, unknown>[] = [];
    await listens.follow(scope, alice, [mine], {
      status: (task) => heard.push(task),
      lost: () => undefined,
    });
    const follower = followed[0]!.followers.get('up-1')!;
    follower.status({ taskId: 'up-1', status: 'working', statusMessage: 'signed in as hunter2' });
    follower.status({
      taskId: 'up-1',
      status: 'working',
      statusMessage: 'hunter2 sent something too big',
      createdAt: 'c',
      lastUpdatedAt: 'u',
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([
      { taskId: mine, status: 'working', statusMessage: 'signed in as [redacted]' },
      {
        taskId: mine,
        createdAt: 'c',
        lastUpdatedAt: 'u',
        status: 'failed',
        error: { code: -32603, message: 'The result is over the limit' },
      },
    ]);
  });

  it('refuses the whole listen when its tasks pass a bound, and follows none of them', async () => {
    const { listens, followed } = setUp(['gw-1', 'gw-2'], (gatewayId) => gatewayId === 'gw-2');
    const refusal = listens.follow(scope, alice, [sealed('up-1'), sealed('up-2', 'gw-2')], {
      status: () => undefined,
      lost: () => undefined,
    });
    await expect(refusal).rejects.toMatchObject({ code: -32600 });
    // What the other gateway followed is stopped again.
    expect(followed.map(({ gatewayId, stop }) => [gatewayId, stop.mock.calls.length])).toEqual([
      ['gw-1', 1],
    ]);
  });
});
