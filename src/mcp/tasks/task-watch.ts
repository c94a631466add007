import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type ClientCapabilities, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { MAX_UPSTREAM_TASK_IDS } from '../../upstream/modern/modern-listen';
import { UpstreamClient } from '../../upstream/upstream-client';
import {
  type Follow,
  FollowedConnections,
  type Follower,
} from '../../upstream/followed-connections';
import { type UpstreamTarget } from '../../upstream/upstream-target';
import { RpcError } from '../protocol/mcp-errors';
import { Tally } from '../../common/tally';

/** Someone following an upstream task's status: a listen. */
export interface TaskFollower extends Follower {
  /** The task as the upstream's `notifications/tasks` carried it (its own id, its `_meta`). */
  status(task: Record<string, unknown>): void;
}

/** The upstream tasks followed through one upstream connection, by the upstream's task id. */
interface TaskFollow extends Follow<TaskFollower> {
  /** The upstream listen's last change: changes go one after the other. */
  changed: Promise<unknown>;
}

/** What the watch declares upstream: the Tasks extension, which the upstream's listen checks. */
const DECLARED = { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;
/**
 * The most tasks one owner (the principal that listens) follows on a replica, counted apart from
 * every other owner's whoever else uses the same upstream credential.
 */
export const MAX_TASKS_PER_OWNER = 1000;
/** The most tasks this replica follows for all owners together: ten full upstream listens. */
export const MAX_TASKS_PER_REPLICA = 10_000;

/**
 * Upstream task status (Tasks extension, 2026-07-28) followed on this replica for the listens
 * held here: one connection per gateway and authorization context (the one the task was made
 * under, as a tools/call acts for its user), whose listen carries every task followed on it as
 * its `taskIds` (a full one gets a sibling). It is opened again when a task is added; when the
 * last follower stops, the connection closes. Each owner follows at most its own share of tasks,
 * so one principal on a shared upstream credential cannot crowd out the others. Tasks live
 * upstream and Portico's ids name them, so any replica follows any task: nothing needs to cross
 * between replicas.
 */
@Injectable()
export class TaskWatch implements OnModuleDestroy {
  private readonly follows: FollowedConnections<TaskFollower, TaskFollow>;
  /** Tasks followed on this replica, by owner and in all: the bounds' counts. */
  private readonly counts = new Tally();

  constructor(private readonly client: UpstreamClient) {
    this.follows = new FollowedConnections(client, 'task');
  }

  onModuleDestroy(): Promise<void> {
    return this.follows.close();
  }

  /**
   * Follows upstream tasks of one gateway: each follower by the upstream's task id. Resolves with
   * the ids the upstream acknowledged (the others are not followed) and the way to stop; throws
   * when the upstream cannot be reached, and an RpcError when the owner's or the replica's bound
   * would be passed.
   */
  async follow(
    gatewayId: string,
    actingFor: { userId: string | null },
    owner: string,
    wanted: ReadonlyMap<string, TaskFollower>,
  ): Promise<{ followed: string[]; stop: () => void }> {
    const release = this.count(owner, wanted.size);
    let shared: [string, TaskFollow];
    try {
      shared = await this.follows.shared(gatewayId, actingFor, this.opener(actingFor), (follow) =>
        fits(follow, wanted),
      );
    } catch (error) {
      release(wanted.size);
      throw error;
    }
    const [key, follow] = shared;
    const leave = (ids: Iterable<string>) => {
      for (const id of ids) {
        const followers = follow.followers.get(id);
        if (!followers?.delete(wanted.get(id)!)) continue;
        release(1);
        if (followers.size === 0) follow.followers.delete(id);
      }
      // Ids left on the upstream listen are harmless (nobody hears them); a later follow drops them.
      if (follow.followers.size > 0) return;
      this.follows.forget(key, follow);
      void follow.connection.then((open) => open.close()).catch(() => undefined);
    };
    for (const [id, follower] of wanted) {
      const followers = follow.followers.get(id) ?? new Set();
      followers.add(follower);
      follow.followers.set(id, followers);
    }
    let acknowledged: readonly string[];
    try {
      acknowledged = await this.relisten(follow);
    } catch (error) {
      leave(wanted.keys());
      throw error;
    }
    const followed = [...wanted.keys()].filter((id) => acknowledged.includes(id));
    leave([...wanted.keys()].filter((id) => !acknowledged.includes(id)));
    return { followed, stop: () => leave(followed) };
  }

  /**
   * Counts `size` more tasks for the owner, refusing (-32600) what would pass its share or the
   * replica's; returns the way to give tasks back.
   */
  private count(owner: string, size: number): (released: number) => void {
    const owned = this.counts.of(owner);
    if (owned + size > MAX_TASKS_PER_OWNER)
      throw new RpcError(
        ProtocolErrorCode.InvalidRequest,
        `This principal follows ${owned} tasks on this replica, at most ${MAX_TASKS_PER_OWNER}; close a listen first`,
      );
    if (this.counts.total + size > MAX_TASKS_PER_REPLICA)
      throw new RpcError(
        ProtocolErrorCode.InvalidRequest,
        'This replica follows as many tasks as it may; try again later',
      );
    this.counts.add(owner, size);
    return (released) => this.counts.release(owner, released);
  }

  private opener(actingFor: { userId: string | null }) {
    return (target: UpstreamTarget): TaskFollow => {
      const opened: TaskFollow = {
        owned: true,
        followers: new Map(),
        changed: Promise.resolve(),
        connection: null!,
      };
      opened.connection = this.client.open(target, {
        capabilities: DECLARED,
        listener: { notification: (message) => this.heard(opened, message) },
        // The listen opens with the first task followed, not for list changes.
        listen: false,
        actingFor,
      });
      return opened;
    };
  }

  /** Opens the upstream listen again with every task followed on the connection. */
  private relisten(follow: TaskFollow): Promise<readonly string[]> {
    const next = follow.changed
      .catch(() => undefined)
      .then(async () => {
        const open = await follow.connection;
        // A 2025 upstream has no Tasks extension, so nothing to follow.
        return open.followTasks ? open.followTasks([...follow.followers.keys()]) : [];
      });
    follow.changed = next;
    return next;
  }

  private heard(
    follow: TaskFollow,
    message: { method: string; params?: Record<string, unknown> },
  ): void {
    if (message.method !== 'notifications/tasks') return;
    const taskId = message.params?.taskId;
    if (typeof taskId !== 'string') return;
    for (const each of [...(follow.followers.get(taskId) ?? [])]) each.status(message.params!);
  }
}

/** Whether the connection's listen can carry the wanted tasks besides those it follows. */
function fits(follow: TaskFollow, wanted: ReadonlyMap<string, TaskFollower>): boolean {
  let added = 0;
  for (const id of wanted.keys()) if (!follow.followers.has(id)) added += 1;
  return follow.followers.size + added <= MAX_UPSTREAM_TASK_IDS;
}
