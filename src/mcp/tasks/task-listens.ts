import { Injectable } from '@nestjs/common';
import { CLIENT_CAPABILITIES_META_KEY, type JSONRPCRequest } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { Directories } from '../directory/directories.service';
import { MISSING_CLIENT_CAPABILITY } from '../protocol/mcp-errors';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { TaskIdSealer } from './task-id-seal';
import { type TaskFollower, TaskWatch } from './task-watch';

/** What a listen hears of the tasks it follows. */
export interface TaskListener {
  /** The task as the upstream told it, with Portico's id in place of the upstream's. */
  status(task: Record<string, unknown>): void;
  /** An upstream it follows tasks on is gone: it can no longer hear of them. */
  lost(): void;
}

/**
 * Task status (Tasks extension, SEP-2663) for `subscriptions/listen`: a listen that declares the
 * extension names the tasks it wants by the ids Portico handed it (`taskIds`); each one that
 * opens for this principal on this endpoint, and whose gateway is still a member, is followed
 * upstream with the upstream's id, and the upstream's `notifications/tasks` reach the listen
 * with the client's id and nothing else changed. Any other id (another principal's, another
 * endpoint's, made up) is left out of the acknowledgement, as one the upstream did not
 * acknowledge is.
 */
@Injectable()
export class TaskListens {
  constructor(
    private readonly sealer: TaskIdSealer,
    private readonly directories: Directories,
    private readonly watch: TaskWatch,
  ) {}

  /**
   * -32021 for a listen that asks for task status (`taskIds`) without declaring the extension in
   * its own client capabilities; null otherwise.
   */
  refusal(message: JSONRPCRequest): { code: number; message: string; data: unknown } | null {
    const params = (message.params ?? {}) as {
      notifications?: { taskIds?: unknown };
      _meta?: Record<string, unknown>;
    };
    if (params.notifications?.taskIds === undefined) return null;
    const capabilities = (params._meta?.[CLIENT_CAPABILITIES_META_KEY] ?? {}) as {
      extensions?: Record<string, unknown>;
    };
    const declared = capabilities.extensions?.[TASKS_EXTENSION];
    if (declared !== undefined && declared !== null) return null;
    return {
      code: MISSING_CLIENT_CAPABILITY,
      message: `Task status needs the ${TASKS_EXTENSION} extension declared in the request's client capabilities`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    };
  }

  /**
   * Follows the tasks named by Portico's ids; resolves with the ids followed (what the
   * acknowledgement names) and the way to stop. An upstream that cannot be reached leaves its
   * tasks out.
   */
  async follow(
    scope: McpScope,
    principal: Principal,
    taskIds: readonly string[],
    tell: TaskListener,
  ): Promise<{ taskIds: string[]; stop: () => void }> {
    if (taskIds.length === 0) return { taskIds: [], stop: () => undefined };
    const directory = await this.directories.get(scope);
    if (!directory) return { taskIds: [], stop: () => undefined };
    const binding = { subject: principal.subject, scope: scopeKey(scope) };
    // By gateway, the client's id of each upstream task.
    const byGateway = new Map<string, Map<string, string>>();
    for (const id of taskIds) {
      const route = this.sealer.open(id, binding);
      if (!route || !directory.tools.gatewayIds.has(route.gatewayId)) continue;
      const ids = byGateway.get(route.gatewayId) ?? new Map<string, string>();
      if (!ids.has(route.taskId)) ids.set(route.taskId, id);
      byGateway.set(route.gatewayId, ids);
    }
    const followed = await Promise.all(
      [...byGateway].map(async ([gatewayId, ids]) => {
        const followers = new Map<string, TaskFollower>(
          [...ids].map(([upstreamId, clientId]) => [
            upstreamId,
            {
              status: (task) => tell.status(asClientSees(task, clientId)),
              lost: () => tell.lost(),
            },
          ]),
        );
        try {
          const follow = await this.watch.follow(
            gatewayId,
            { userId: principal.userId },
            followers,
          );
          return { ids: follow.followed.map((id) => ids.get(id)!), stop: follow.stop };
        } catch {
          return null;
        }
      }),
    );
    const following = followed.filter((each) => each !== null);
    const followedIds = new Set(following.flatMap(({ ids }) => ids));
    return {
      // In the order the client named them.
      taskIds: taskIds.filter((id) => followedIds.has(id)),
      stop: () => following.forEach(({ stop }) => stop()),
    };
  }
}

/** The upstream's task with the client's id; the upstream listen's own `_meta` stays upstream. */
function asClientSees(task: Record<string, unknown>, clientId: string): Record<string, unknown> {
  const { _meta: _upstreamMeta, ...fields } = task;
  return { ...fields, taskId: clientId };
}
