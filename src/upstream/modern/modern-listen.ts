import {
  type JSONRPCNotification,
  ProtocolErrorCode,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/client';
import { setTimeout as delay } from 'node:timers/promises';
import { type Channel } from '../transport/channel';
import { type UpstreamListener } from '../upstream-connection';
import { UpstreamRpcError } from '../upstream-error';
import { doublingWait } from '../resilience/upstream-retry';
import { isJsonObject } from '../../common/json-value';

/** How long opening a watch waits for the upstream to acknowledge its listen. */
const LISTEN_ACK_WAIT_MS = 2000;
/** A listen the upstream ends sooner than this after it began ended early. */
const EARLY_END_MS = 30_000;
/** The first wait before listening again after an early end; doubled for each in a row. */
const RELISTEN_FIRST_MS = 500;
/** The longest wait before listening again. */
const RELISTEN_MAX_MS = 30_000;
/** The most resources one connection's listen follows. */
const MAX_RESOURCE_SUBSCRIPTIONS = 100;
/** The most upstream tasks (Tasks extension) one connection's listen follows. */
export const MAX_UPSTREAM_TASK_IDS = 1000;
/** What a watch listens for: every list change (resources are added as they are subscribed). */
const LISTEN_FILTER = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
};

/** What a listen needs of the connection it belongs to. */
export interface ListenHost {
  channel: Channel;
  /** An id no request of the connection uses. */
  nextId(): number;
  /** Whether list changes are listened for (`ConnectOptions.listen`). */
  listChanges: boolean;
  listener: UpstreamListener | undefined;
  /** Aborted when the connection closes: the listen ends with it, and no loss is reported. */
  closing: AbortSignal;
  /** The connection's `_meta` envelope, which a listen carries too. */
  envelope(): Record<string, unknown>;
  lose(error: unknown): void;
}

/**
 * The listen of one 2026-07-28 connection: list changes, the resources subscribed on it and the
 * tasks followed on it (Tasks extension), held until the connection closes; it carries only the notifications it asked for. A listen's filter
 * cannot change, so a new one is opened (and acknowledged) before the one it replaces is closed. An
 * upstream that refuses it has nothing to say outside requests. One that ends it with its result
 * (as the revision lets a server end a listen gracefully) is listened to again, at once after a
 * long listen and after a wait that doubles with each early end in a row, so that an upstream
 * that ends every listen at once is neither asked in a loop nor makes the connection fail; so is
 * one whose acknowledged listen drops without a result. A listen that fails before it is
 * acknowledged loses the connection, and whoever holds it listens again.
 */
export class ModernListen {
  private handler: ((message: JSONRPCNotification) => void) | null = null;
  /** The listen open now; aborting it closes its stream. */
  private listening: AbortController | null = null;
  /** What 2025 callers subscribed to on this connection: the listen's resourceSubscriptions. */
  private readonly resourceUris = new Set<string>();
  /** The upstream's task ids (Tasks extension) followed on this connection: the listen's taskIds. */
  private taskIds: readonly string[] = [];
  /** The task ids the open listen's acknowledgement named. */
  private acknowledgedTaskIds: readonly string[] = [];
  /** Listens in a row that the upstream ended early. */
  private earlyEnds = 0;
  /** A listen ended and none has been acknowledged since: what the upstream said is lost. */
  private gap = false;

  constructor(private readonly host: ListenHost) {}

  /** Takes a message outside any request that belongs to the listen (on stdio); false: not one. */
  heard(message: JSONRPCNotification): boolean {
    const meta = message.params?._meta;
    if (
      meta?.[SUBSCRIPTION_ID_META_KEY] === undefined &&
      !message.method.startsWith('notifications/subscriptions/')
    )
      return false;
    this.handler?.(message);
    return true;
  }

  /**
   * Opens the listen with what is followed now. After a listen the upstream ended, the first one
   * acknowledged tells its holder, in the upstream's name, what it may have missed in between (a
   * list change of each list it follows, an update of each resource it follows).
   */
  async open(): Promise<void> {
    const { channel, listener, closing } = this.host;
    const id = this.host.nextId();
    const previous = this.listening;
    const stop = new AbortController();
    this.listening = stop;
    let acknowledged!: () => void;
    let heard = false;
    const ack = new Promise<void>((resolve) => (acknowledged = resolve));
    this.handler = (message) => {
      if (message.method !== 'notifications/subscriptions/acknowledged')
        return listener?.notification?.(message);
      if (!replaced()) {
        this.acknowledgedTaskIds = acknowledgedTasks(message);
        if (this.gap) {
          this.gap = false;
          for (const missed of catchUp(notifications, message)) listener?.notification?.(missed);
        }
      }
      heard = true;
      acknowledged();
    };
    const notifications = {
      ...(this.host.listChanges ? LISTEN_FILTER : {}),
      ...(this.resourceUris.size > 0 ? { resourceSubscriptions: [...this.resourceUris] } : {}),
      ...(this.taskIds.length > 0 ? { taskIds: [...this.taskIds] } : {}),
    };
    this.acknowledgedTaskIds = [];
    const replaced = () => this.listening !== stop;
    const began = Date.now();
    const ended = channel
      .request(
        {
          jsonrpc: '2.0',
          id,
          method: 'subscriptions/listen',
          params: { notifications, _meta: this.host.envelope() },
        },
        {
          signal: AbortSignal.any([closing, stop.signal]),
          longLived: true,
          headers: { 'mcp-method': 'subscriptions/listen' },
          onMessage: (message) => {
            if ('id' in message) return;
            // The listen it replaces still hears list changes until then; resource updates too.
            if (replaced()) listener?.notification?.(message);
            else this.handler?.(message);
          },
        },
      )
      .then(
        (response) => {
          if ('error' in response || replaced()) return;
          this.gap = true;
          void this.listenAgain(stop, Date.now() - began);
        },
        (error: unknown) => {
          if (closing.aborted || replaced()) return;
          // Acknowledged, then dropped: the upstream is there, and is listened to again.
          if (!heard) return this.host.lose(error);
          this.gap = true;
          void this.listenAgain(stop, Date.now() - began);
        },
      )
      .finally(acknowledged);
    await Promise.race([ack, ended, delay(LISTEN_ACK_WAIT_MS, undefined, { ref: false })]);
    previous?.abort();
  }

  /**
   * `resources/subscribe` and `resources/unsubscribe` of a 2025 caller: on this era they are the
   * listen's `resourceSubscriptions`, so the listen is opened again with the new set.
   */
  async subscription(method: string, uri: unknown, offered: boolean): Promise<void> {
    if (typeof uri !== 'string')
      throw new UpstreamRpcError(ProtocolErrorCode.InvalidParams, `${method} needs a uri`);
    if (!offered)
      throw new UpstreamRpcError(
        ProtocolErrorCode.MethodNotFound,
        'The upstream does not offer resource subscriptions',
      );
    if (method === 'resources/unsubscribe') {
      if (!this.resourceUris.delete(uri)) return;
    } else {
      if (this.resourceUris.has(uri)) return;
      if (this.resourceUris.size >= MAX_RESOURCE_SUBSCRIPTIONS)
        throw new UpstreamRpcError(
          ProtocolErrorCode.InvalidRequest,
          `At most ${MAX_RESOURCE_SUBSCRIPTIONS} resources are followed on one upstream connection`,
        );
      this.resourceUris.add(uri);
    }
    await this.reopen();
  }

  /**
   * The upstream tasks (Tasks extension, 2026-07-28) the listen follows, all of them: the listen
   * is opened again with them as its `taskIds`. Resolves with those the upstream acknowledged;
   * an upstream that refuses the listen, or does not follow tasks, acknowledges none.
   */
  async tasks(taskIds: readonly string[]): Promise<readonly string[]> {
    if (taskIds.length > MAX_UPSTREAM_TASK_IDS)
      throw new UpstreamRpcError(
        ProtocolErrorCode.InvalidRequest,
        `At most ${MAX_UPSTREAM_TASK_IDS} tasks are followed on one upstream connection`,
      );
    this.taskIds = [...taskIds];
    await this.reopen();
    return this.acknowledgedTaskIds;
  }

  /**
   * After the upstream ended the listen `ended` (with its result, or by dropping it once it was
   * acknowledged), `lasted` ms after it began.
   */
  private async listenAgain(ended: AbortController, lasted: number): Promise<void> {
    this.earlyEnds = lasted < EARLY_END_MS ? this.earlyEnds + 1 : 0;
    const wait = doublingWait(this.earlyEnds, RELISTEN_FIRST_MS, RELISTEN_MAX_MS);
    const { closing } = this.host;
    await delay(wait, undefined, { signal: closing, ref: false }).catch(() => undefined);
    // Closed meanwhile, or replaced by a listen with another filter: nothing to do.
    if (!closing.aborted && this.listening === ended) await this.reopen();
  }

  private async reopen(): Promise<void> {
    if (this.resourceUris.size > 0 || this.taskIds.length > 0 || this.host.listChanges)
      return this.open();
    this.listening?.abort();
    this.listening = null;
    this.acknowledgedTaskIds = [];
  }
}

/** The list each filter flag follows. */
const LISTS = [
  ['toolsListChanged', 'tools'],
  ['promptsListChanged', 'prompts'],
  ['resourcesListChanged', 'resources'],
] as const;

/**
 * What a listen may have missed while none was open, as the upstream would have said it: a
 * `list_changed` of each list and a `resources/updated` of each resource that both the listen
 * asked for and its acknowledgement honoured (all that was asked, where the acknowledgement does
 * not say). Task status is not made up: a task's follower asks `tasks/get` for it.
 */
function catchUp(
  asked: { resourceSubscriptions?: string[] } & Partial<Record<(typeof LISTS)[number][0], boolean>>,
  acknowledgement: JSONRPCNotification,
): JSONRPCNotification[] {
  const echoed = acknowledgement.params?.notifications;
  const honoured: Record<string, unknown> = isJsonObject(echoed) ? echoed : asked;
  const lists = LISTS.filter(([flag]) => asked[flag] === true && honoured[flag] === true).map(
    ([, list]): JSONRPCNotification => ({
      jsonrpc: '2.0',
      method: `notifications/${list}/list_changed`,
    }),
  );
  const kept = Array.isArray(honoured.resourceSubscriptions) ? honoured.resourceSubscriptions : [];
  const resources = (asked.resourceSubscriptions ?? [])
    .filter((uri) => kept.includes(uri))
    .map((uri): JSONRPCNotification => ({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri },
    }));
  return [...lists, ...resources];
}

/** The task ids an upstream's listen acknowledgement names (`notifications.taskIds`). */
function acknowledgedTasks(message: JSONRPCNotification): readonly string[] {
  const notifications = message.params?.notifications as { taskIds?: unknown } | undefined;
  const ids = notifications?.taskIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
