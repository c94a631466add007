import { type UpstreamClient } from '../../upstream/upstream-client';
import { type OpenOptions } from '../../upstream/upstream-connection';
import { UpstreamFailure } from '../../upstream/upstream-error';
import { MAX_UPSTREAM_TASK_IDS } from '../../upstream/modern/modern-listen';
import { RpcError } from '../protocol/mcp-errors';
import {
  MAX_TASKS_PER_OWNER,
  MAX_TASKS_PER_REPLICA,
  TaskWatch,
  type TaskFollower,
} from './task-watch';

/** One fake upstream connection: what its listen follows, and a way to speak on it. */
interface FakeUpstream {
  options: OpenOptions;
  listened: string[][];
  closed: boolean;
  lose(): void;
  say(method: string, params: Record<string, unknown>): void;
}

function setUp(options: { acknowledges?: (id: string) => boolean; oauth?: boolean } = {}) {
  const upstreams: FakeUpstream[] = [];
  const credentials = options.oauth
    ? { type: 'oauth', mode: 'per-user' }
    : { type: 'bearer', token: 'x' };
  const client = {
    target: jest.fn((gatewayId: string) =>
      Promise.resolve(gatewayId === 'gone' ? null : { gatewayId, endpoint: { credentials } }),
    ),
    open: jest.fn((_target: unknown, opened: OpenOptions) => {
      let lose!: (reason: UpstreamFailure) => void;
      const upstream: FakeUpstream = {
        options: opened,
        listened: [],
        closed: false,
        lose: () => lose(new UpstreamFailure('unreachable', 'gone')),
        say: (method, params) =>
          opened.listener?.notification?.({ jsonrpc: '2.0', method, params }),
      };
      upstreams.push(upstream);
      return Promise.resolve({
        lost: new Promise<UpstreamFailure>((resolve) => (lose = resolve)),
        followTasks: (ids: readonly string[]) => {
          if (ids.length > MAX_UPSTREAM_TASK_IDS)
            return Promise.reject(new Error('too many tasks on one upstream listen'));
          upstream.listened.push([...ids]);
          return Promise.resolve(ids.filter(options.acknowledges ?? (() => true)));
        },
        close: () => {
          upstream.closed = true;
          return Promise.resolve();
        },
      });
    }),
  };
  const watch = new TaskWatch(client as unknown as UpstreamClient);
  return { watch, upstreams, client };
}

function follower(): TaskFollower & { heard: Record<string, unknown>[]; lostCount: number } {
  const each = {
    heard: [] as Record<string, unknown>[],
    lostCount: 0,
    status: (task: Record<string, unknown>) => each.heard.push(task),
    lost: () => (each.lostCount += 1),
  };
  return each;
}

const alice = { userId: 'alice' };

/** `count` tasks named from `prefix`, each with a follower of its own. */
const tasks = (prefix: string, count: number) =>
  new Map(Array.from({ length: count }, (_, n) => [`${prefix}-${n}`, follower()] as const));

describe('TaskWatch', () => {
  it('follows tasks on one upstream listen that declares the extension, and relays their status', async () => {
    const { watch, upstreams } = setUp();
    const first = follower();
    const second = follower();
    const a = await watch.follow('gw', alice, 'user:alice', new Map([['up-1', first]]));
    const b = await watch.follow('gw', { userId: 'bob' }, 'user:bob', new Map([['up-2', second]]));
    expect(a.followed).toEqual(['up-1']);
    expect(b.followed).toEqual(['up-2']);
    // One connection for the gateway's one credential, its listen carrying both tasks.
    expect(upstreams).toHaveLength(1);
    expect(upstreams[0]!.options).toMatchObject({
      capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      listen: false,
    });
    expect(upstreams[0]!.listened).toEqual([['up-1'], ['up-1', 'up-2']]);
    upstreams[0]!.say('notifications/tasks', { taskId: 'up-2', status: 'completed' });
    upstreams[0]!.say('notifications/resources/updated', { uri: 'x://y' });
    expect(first.heard).toEqual([]);
    expect(second.heard).toEqual([{ taskId: 'up-2', status: 'completed' }]);
  });

  it('keeps per-user OAuth upstreams apart: one connection per user', async () => {
    const { watch, upstreams } = setUp({ oauth: true });
    await watch.follow('gw', alice, 'user:alice', new Map([['up-1', follower()]]));
    await watch.follow('gw', { userId: 'bob' }, 'user:bob', new Map([['up-2', follower()]]));
    expect(upstreams.map((upstream) => upstream.listened)).toEqual([[['up-1']], [['up-2']]]);
  });

  it('follows only what the upstream acknowledged', async () => {
    const { watch, upstreams } = setUp({ acknowledges: (id) => id !== 'up-2' });
    const refused = follower();
    const follow = await watch.follow(
      'gw',
      alice,
      'user:alice',
      new Map([
        ['up-1', follower()],
        ['up-2', refused],
      ]),
    );
    expect(follow.followed).toEqual(['up-1']);
    upstreams[0]!.say('notifications/tasks', { taskId: 'up-2', status: 'working' });
    expect(refused.heard).toEqual([]);
  });

  it('closes the connection when the last follower stops, and opens a new one after', async () => {
    const { watch, upstreams } = setUp();
    const a = await watch.follow('gw', alice, 'user:alice', new Map([['up-1', follower()]]));
    const b = await watch.follow('gw', alice, 'user:alice', new Map([['up-1', follower()]]));
    a.stop();
    expect(upstreams[0]!.closed).toBe(false);
    b.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(upstreams[0]!.closed).toBe(true);
    await watch.follow('gw', alice, 'user:alice', new Map([['up-3', follower()]]));
    expect(upstreams).toHaveLength(2);
  });

  it('tells its followers when the upstream connection is lost', async () => {
    const { watch, upstreams } = setUp();
    const one = follower();
    await watch.follow('gw', alice, 'user:alice', new Map([['up-1', one]]));
    upstreams[0]!.lose();
    await new Promise((resolve) => setImmediate(resolve));
    expect(one.lostCount).toBe(1);
    await watch.follow('gw', alice, 'user:alice', new Map([['up-1', follower()]]));
    expect(upstreams).toHaveLength(2);
  });

  it('refuses a gateway that is no longer active', async () => {
    const { watch } = setUp();
    await expect(
      watch.follow('gone', alice, 'user:alice', new Map([['up-1', follower()]])),
    ).rejects.toThrow('no longer active');
  });

  it('bounds each principal on its own: one at its share neither blocks another on the same credential nor passes it', async () => {
    const { watch, upstreams } = setUp();
    // Both act through the gateway's one shared credential: one upstream context.
    const full = await watch.follow('gw', alice, 'user:alice', tasks('a', MAX_TASKS_PER_OWNER));
    expect(full.followed).toHaveLength(MAX_TASKS_PER_OWNER);
    const bob = await watch.follow('gw', { userId: 'bob' }, 'user:bob', tasks('b', 1));
    expect(bob.followed).toEqual(['b-0']);
    // The full upstream listen got a sibling under the same credential.
    expect(upstreams).toHaveLength(2);
    expect(upstreams[1]!.listened).toEqual([['b-0']]);
    const over = watch.follow('gw', alice, 'user:alice', tasks('more', 1));
    await expect(over).rejects.toBeInstanceOf(RpcError);
    await expect(over).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining(`at most ${MAX_TASKS_PER_OWNER}`),
    });
    // Stopping gives the share back.
    full.stop();
    const again = await watch.follow('gw', alice, 'user:alice', tasks('more', 1));
    expect(again.followed).toEqual(['more-0']);
  });

  it('bounds the replica in all, and gives back what a refused or failed follow counted', async () => {
    const { watch } = setUp();
    const owners = MAX_TASKS_PER_REPLICA / MAX_TASKS_PER_OWNER;
    for (let n = 0; n < owners; n++)
      await watch.follow(`gw-${n}`, alice, `user:${n}`, tasks('t', MAX_TASKS_PER_OWNER));
    await expect(
      watch.follow('gw', { userId: 'bob' }, 'user:bob', tasks('b', 1)),
    ).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('This replica') });

    const fresh = setUp().watch;
    await expect(
      fresh.follow('gone', alice, 'user:alice', tasks('a', MAX_TASKS_PER_OWNER)),
    ).rejects.toThrow('no longer active');
    const after = await fresh.follow('gw', alice, 'user:alice', tasks('a', MAX_TASKS_PER_OWNER));
    expect(after.followed).toHaveLength(MAX_TASKS_PER_OWNER);
  });
});
