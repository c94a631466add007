import { Injectable } from '@nestjs/common';
import { type JSONRPCRequest, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { exchangeSubjectOf } from '../../auth/principal-resolver';
import { type Authorized } from '../protocol/authorized';
import { jsonRpcError, RpcError } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { SseResponse } from '../streams/sse-response';
import { endAtExpiry } from '../streams/stream-expiry';
import { StreamQuota } from '../streams/stream-quota';
import { filterRefusal, honouredFilter } from './listen-filter';
import { TaskListens } from '../tasks/task-listens';
import { ListenHub, type OpenListen, SUBSCRIPTION_ID } from './listen-hub';
import { ReadableResources } from './readable-resources';
import { ResourceWatch } from './resource-watch';

/** What a listen's stream may hold unread before the client counts as not reading it. */
const LISTEN_BUFFER_BYTES = 64 * 1024;

const LISTEN_REFUSALS = {
  'principal-limit': 'Too many listens open for this principal on this replica; close one first',
  'replica-limit': 'This replica holds as many listens as it may; try again later',
  'scope-gone': 'This virtual server no longer exists or is disabled',
} as const;

/**
 * `subscriptions/listen` of the 2026-07-28 wire: the response becomes the listen's stream, held by
 * the hub on this replica, following upstream the resources and the tasks it names.
 */
@Injectable()
export class ListenEndpoint {
  constructor(
    private readonly hub: ListenHub,
    private readonly watch: ResourceWatch,
    private readonly quota: StreamQuota,
    private readonly tasks: TaskListens,
    private readonly readable: ReadableResources,
  ) {}

  /**
   * `subscriptions/listen`: the response becomes the listen's stream, counted among the
   * principal's streams; the hub writes the acknowledgement, then the list changes, resource
   * updates and task status it asked for (task status only with the Tasks extension declared).
   * A graceful end (the scope gone, the replica stopping) answers the listen with its result; a
   * credential changed or expired, or a client that stopped reading, just drops the stream, so a
   * client still entitled listens again.
   */
  async serve({ response, scope, principal }: Authorized, message: JSONRPCRequest): Promise<void> {
    this.quota.admit(principal, response);
    const sse = new SseResponse(response, { keepalive: true });
    const refuse = (code: number, text: string, data?: unknown) => {
      sse.message(jsonRpcError(message.id, code, text, data));
      sse.end();
    };
    const requested = (message.params as { notifications?: unknown } | undefined)?.notifications;
    const invalid = filterRefusal(requested);
    if (invalid) return refuse(ProtocolErrorCode.InvalidParams, invalid);
    const refused = this.tasks.refusal(message);
    if (refused) return refuse(refused.code, refused.message, refused.data);
    const filter = honouredFilter(requested);
    // Each resource the listen follows is followed upstream first; what cannot be is left out
    // of the acknowledgement. Updates that come before the hub holds the listen are not lost.
    let listen: OpenListen | null = null;
    const early = new Set<string>();
    const following = await this.follow(scope, principal, filter.resourceSubscriptions ?? [], {
      updated: (uri) => (listen ? listen.resourceUpdated(uri) : early.add(uri)),
      lost: () => listen?.drop('upstream-lost'),
    });
    const earlyTasks = new Map<unknown, Record<string, unknown>>();
    let tasks: Awaited<ReturnType<TaskListens['follow']>>;
    try {
      tasks = await this.tasks.follow(scope, principal, filter.taskIds ?? [], {
        status: (task) => (listen ? listen.taskStatus(task) : earlyTasks.set(task.taskId, task)),
        lost: () => listen?.drop('upstream-lost'),
      });
    } catch (error) {
      following.forEach(({ stop }) => stop());
      if (!(error instanceof RpcError)) throw error;
      return refuse(error.code, error.message);
    }
    const unfollow = () => {
      following.forEach(({ stop }) => stop());
      tasks.stop();
    };
    const opened = await this.hub.open({
      requestId: message.id,
      scope,
      owner: { subject: principal.subject, tokenId: principal.tokenId },
      filter: {
        ...filter,
        resourceSubscriptions: following.map(({ uri }) => uri),
        taskIds: tasks.taskIds,
      },
      sink: {
        write: (notification) => {
          sse.message(notification);
          return response.writableLength <= LISTEN_BUFFER_BYTES;
        },
        end: (reason) => {
          unfollow();
          if (reason !== 'scope-gone' && reason !== 'shutdown') {
            response.destroy();
            return;
          }
          sse.message({
            jsonrpc: '2.0',
            id: message.id,
            result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: message.id } },
          });
          sse.end();
        },
      },
    });
    if (!opened.ok) {
      unfollow();
      return refuse(ProtocolErrorCode.InvalidRequest, LISTEN_REFUSALS[opened.refusal]);
    }
    listen = opened.listen;
    for (const uri of early) listen.resourceUpdated(uri);
    for (const task of earlyTasks.values()) listen.taskStatus(task);
    sse.onClose(() => {
      unfollow();
      opened.listen.close();
    });
    endAtExpiry(principal, sse, () => opened.listen.drop('credential-expired'));
  }

  /**
   * Follows each URI upstream (through the scope's directory, as a read resolves it); the URIs
   * followed, with the way to stop; updates only while the principal may still read it. One that
   * names no resource of the scope (a skill's file where the skill is not served to the principal
   * included), or whose upstream offers no subscriptions or cannot be reached within the upstream
   * timeout, is left out.
   */
  private async follow(
    scope: McpScope,
    principal: Principal,
    uris: readonly string[],
    tell: { updated(uri: string): void; lost(): void },
  ): Promise<{ uri: string; stop: () => void }[]> {
    const followed = await Promise.all(
      uris.map(async (uri) => {
        const target = await this.readable.target(scope, principal, uri);
        if (!target) return null;
        try {
          const stop = await this.watch.follow(
            target,
            {
              actingFor: {
                userId: principal.userId,
                subject: exchangeSubjectOf(principal),
              },
            },
            target.upstreamUri,
            {
              updated: this.readable.updates(scope, principal, uri, () => tell.updated(uri)),
              lost: () => tell.lost(),
            },
          );
          return { uri, stop };
        } catch {
          return null;
        }
      }),
    );
    return followed.filter((each) => each !== null);
  }
}
