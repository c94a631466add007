import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type ClientCapabilities } from '@modelcontextprotocol/server';
import { authorizationContext, TASKS_EXTENSION } from '../../upstream/affinity';
import { UpstreamClient } from '../../upstream/upstream-client';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { UpstreamConnector } from '../../upstream/upstream-connector.service';
import { UpstreamFailure } from '../../upstream/upstream-error';

/** Someone following an upstream task's status: a listen. */
export interface TaskFollower {
  /** The task as the upstream's `notifications/tasks` carried it (its own id, its `_meta`). */
  status(task: Record<string, unknown>): void;
  /** The upstream connection is gone: no more status will come. */
  lost(): void;
}

/** The upstream tasks followed through one upstream connection. */
interface Follow {
  connection: Promise<UpstreamConnection>;
  /** Followers by the upstream's task id. */
  followers: Map<string, Set<TaskFollower>>;
  /** The upstream listen's last change: changes go one after the other. */
  changed: Promise<unknown>;
}

/** What the watch declares upstream: the Tasks extension, which the upstream's listen checks. */
const DECLARED = { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;

/**
 * Upstream task status (Tasks extension, 2026-07-28) followed on this replica for the listens
 * held here: one connection per gateway and authorization context (the one the task was made
 * under, as a tools/call acts for its user), whose listen carries every task followed on it as
 * its `taskIds`. It is opened again when a task is added; when the last follower stops, the
 * connection closes. Tasks live upstream and Portico's ids name them, so any replica follows any
 * task: nothing needs to cross between replicas.
 */
@Injectable()
export class TaskWatch implements OnModuleDestroy {
  private readonly follows = new Map<string, Follow>();

  constructor(
    private readonly connector: UpstreamConnector,
    private readonly client: UpstreamClient,
  ) {}

  async onModuleDestroy(): Promise<void> {
    const follows = [...this.follows.values()];
    this.follows.clear();
    await Promise.all(
      follows.map(async ({ connection }) =>
        (await connection.catch(() => null))?.close().catch(() => undefined),
      ),
    );
  }

  /**
   * Follows upstream tasks of one gateway: each follower by the upstream's task id. Resolves with
   * the ids the upstream acknowledged (the others are not followed) and the way to stop; throws
   * when the upstream cannot be reached.
   */
  async follow(
    gatewayId: string,
    actingFor: { userId: string | null },
    wanted: ReadonlyMap<string, TaskFollower>,
  ): Promise<{ followed: string[]; stop: () => void }> {
    const [key, follow] = await this.followOn(gatewayId, actingFor);
    const leave = (ids: Iterable<string>) => {
      for (const id of ids) {
        const followers = follow.followers.get(id);
        if (!followers?.delete(wanted.get(id)!) || followers.size > 0) continue;
        follow.followers.delete(id);
      }
      // Ids left on the upstream listen are harmless (nobody hears them); a later follow drops them.
      if (follow.followers.size > 0) return;
      if (this.follows.get(key) === follow) this.follows.delete(key);
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

  /** Opens the upstream listen again with every task followed on the connection. */
  private relisten(follow: Follow): Promise<readonly string[]> {
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

  private async followOn(
    gatewayId: string,
    actingFor: { userId: string | null },
  ): Promise<[string, Follow]> {
    const target = await this.client.target(gatewayId);
    if (!target)
      throw new UpstreamFailure('unreachable', 'the gateway of this task is no longer active');
    const key = `${gatewayId}\0${authorizationContext(target, actingFor)}`;
    const existing = this.follows.get(key);
    if (existing) return [key, existing];
    const follow: Follow = {
      followers: new Map(),
      changed: Promise.resolve(),
      connection: null!,
    };
    follow.connection = this.connector.open(target, {
      capabilities: DECLARED,
      listener: { notification: (message) => this.heard(follow, message) },
      // The listen opens with the first task followed, not for list changes.
      listen: false,
      actingFor,
    });
    this.follows.set(key, follow);
    void follow.connection
      .then((open) => open.lost)
      .then(
        () => {
          if (this.follows.get(key) === follow) this.follows.delete(key);
          for (const followers of [...follow.followers.values()])
            for (const each of [...followers]) each.lost();
        },
        () => {
          if (this.follows.get(key) === follow) this.follows.delete(key);
        },
      );
    return [key, follow];
  }

  private heard(
    follow: Follow,
    message: { method: string; params?: Record<string, unknown> },
  ): void {
    if (message.method !== 'notifications/tasks') return;
    const taskId = message.params?.taskId;
    if (typeof taskId !== 'string') return;
    for (const each of [...(follow.followers.get(taskId) ?? [])]) each.status(message.params!);
  }
}
