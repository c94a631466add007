import { Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type JSONRPCRequest,
  ProtocolErrorCode,
  type Result,
} from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { TASKS_EXTENSION } from '../../upstream/client-capabilities';
import { Directories } from '../directory/directories.service';
import { MISSING_CLIENT_CAPABILITY, RpcError } from '../protocol/mcp-errors';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { TaskIdSealer, type TaskRoute } from './task-id-seal';
import { TaskAccess } from './task-access';
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
    private readonly access: TaskAccess,
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
   * tasks out; tasks past the principal's or the replica's bound refuse the whole listen
   * (RpcError, -32600), none of its tasks followed.
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
    // By gateway, each upstream task's route and the client's id of it.
    const byGateway = new Map<string, Map<string, Followed>>();
    for (const id of taskIds) {
      const route = this.sealer.open(id, binding);
      if (!route || !(await this.access.tool(directory, principal, route))) continue;
      const ids = byGateway.get(route.gatewayId) ?? new Map<string, Followed>();
      if (!ids.has(route.taskId)) ids.set(route.taskId, { route, clientId: id });
      byGateway.set(route.gatewayId, ids);
    }
    const followed = await Promise.all(
      [...byGateway].map(async ([gatewayId, ids]): Promise<FollowedOnGateway | RpcError | null> => {
        const followers = new Map<string, TaskFollower>(
          [...ids].map(([upstreamId, followed]) => {
            // One after the other: each status is judged (and its result checked) in turn.
            let told = Promise.resolve();
            const status = (task: Record<string, unknown>) =>
              (told = told
                .then(() => this.judged(scope, principal, followed, task))
                .then((seen) => {
                  if (seen) tell.status(seen);
                })
                .catch(() => undefined));
            return [upstreamId, { status, lost: () => tell.lost() }];
          }),
        );
        try {
          const follow = await this.watch.follow(
            gatewayId,
            { userId: principal.userId },
            principal.subject,
            followers,
          );
          return { ids: follow.followed.map((id) => ids.get(id)!.clientId), stop: follow.stop };
        } catch (error) {
          // A bound passed is the client's to hear; an unreachable upstream only leaves its tasks out.
          if (error instanceof RpcError) return error;
          return null;
        }
      }),
    );
    const following = followed.filter(
      (each): each is FollowedOnGateway => each !== null && !(each instanceof RpcError),
    );
    const refused = followed.find((each): each is RpcError => each instanceof RpcError);
    if (refused) {
      following.forEach(({ stop }) => stop());
      throw refused;
    }
    const followedIds = new Set(following.flatMap(({ ids }) => ids));
    return {
      // In the order the client named them.
      taskIds: taskIds.filter((id) => followedIds.has(id)),
      stop: () => following.forEach(({ stop }) => stop()),
    };
  }

  /**
   * The upstream's task as the client may hear of it now (null: not at all, the tool being no
   * longer theirs to use here): the client's id, and its own words (a status message, an error)
   * and its result as a call's result would go out (what the hooks refuse makes the task failed,
   * with their word); the upstream listen's own `_meta` stays upstream.
   */
  private async judged(
    scope: McpScope,
    principal: Principal,
    { route, clientId }: Followed,
    task: Record<string, unknown>,
  ): Promise<Record<string, unknown> | null> {
    const directory = await this.directories.get(scope);
    const tool = directory && (await this.access.tool(directory, principal, route));
    if (!directory || !tool) return null;
    const { _meta: _upstreamMeta, result, ...fields } = task;
    const delivered = (given: Result) =>
      this.access.delivered(directory, principal, route, tool, given);
    try {
      const told = { ...(await delivered(fields)), taskId: clientId };
      if (result === null || typeof result !== 'object') return told;
      return { ...told, result: await delivered(result as Result) };
    } catch (error) {
      const { code, message } =
        error instanceof RpcError
          ? error
          : new RpcError(ProtocolErrorCode.InternalError, 'The task result was refused');
      // Nothing the hooks were given goes out with their refusal: the task's times alone.
      const { createdAt, lastUpdatedAt } = fields;
      return {
        taskId: clientId,
        createdAt,
        lastUpdatedAt,
        status: 'failed',
        error: { code, message },
      };
    }
  }
}

/** A task a listen follows: its route, and the id the client knows it by. */
interface Followed {
  route: TaskRoute;
  clientId: string;
}

/** A gateway's tasks a listen follows: the client's ids of them, and the way to stop. */
interface FollowedOnGateway {
  ids: string[];
  stop: () => void;
}
