import { randomUUID } from 'node:crypto';
import { type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type JSONRPCNotification } from '@modelcontextprotocol/server';
import {
  type EventBus,
  type PorticoEvent,
  UPSTREAM_LISTS,
  type UpstreamList,
} from '../../events/event-bus';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { type StreamOwner } from '../streams/client-stream';
import { affectedBy } from './identity-change';
import { asksFor, honouredFilter, type ListenFilter } from './listen-filter';
import { type Announced, movedLists, seenNow, type ListVersions } from './list-versions';
import { type ListenDrop, type ListenEnd, type ListenSink } from './listen-sink';

export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** What may move lists: Portico's own changes, and upstreams' word (see movedLists). */
const MOVES = new Set(['catalog.changed', 'servers.changed', 'lists.announced']);
/** Changes come in bursts (a sync, a config apply): one announcement covers a burst. */
const ANNOUNCE_DEBOUNCE_MS = 100;

export interface ListenRequest {
  /** The id of the `subscriptions/listen` request: every notification carries it. */
  requestId: string | number;
  scope: McpScope;
  owner: StreamOwner;
  /** `params.notifications` as the client sent it. */
  filter: unknown;
  sink: ListenSink;
}

export type ListenOpened =
  | { ok: true; listen: OpenListen }
  | { ok: false; refusal: 'principal-limit' | 'replica-limit' | 'scope-gone' };

/** A listen as its HTTP stream holds it. */
export interface OpenListen {
  readonly filter: ListenFilter;
  /** A resource it follows was updated upstream: the listen hears of it. */
  resourceUpdated(uri: string): void;
  /** A task it follows changed status: the listen hears the task (`notifications/tasks`). */
  taskStatus(task: Record<string, unknown>): void;
  /**
   * It can no longer hear what it asked for (an upstream lost), or its credential expired: it
   * drops without a result, so that the client listens again (with a fresh credential).
   */
  drop(reason: ListenDrop): void;
  /** The client went away: forget the listen (the sink is not told). */
  close(): void;
}

/**
 * A 2025 session as this replica holds it. Its notifications are the plain 2025 ones, written
 * into the session (which keeps them for resumption); it ends only when its server is gone (the
 * session closes) or the replica stops. Its streams are opened under credentials it outlives, so
 * an identity change ends those streams (the session registry does), never the session.
 */
export interface SessionListener {
  scope: McpScope;
  /** The lists it hears of: those the server's capabilities say may change. */
  filter: ListenFilter;
  /** Per list, the version the session last saw; its own list requests update it too. */
  seen: Map<UpstreamList, string>;
  /**
   * Whether it hears now: while its stream is open on this replica, so that one replica, the
   * one holding the stream, tells it of a change. The others only close it if its server goes.
   */
  hearing(): boolean;
  sink: ListenSink;
}

export interface ListenLimits {
  perPrincipal: number;
  total: number;
}

export const DEFAULT_LISTEN_LIMITS: ListenLimits = { perPrincipal: 16, total: 10_000 };

/** What the hub tells the rest of the replica: what went wrong, and how many listens it holds. */
export interface ListenReports {
  warn(message: string): void;
  listens(open: number): void;
}
const QUIET: ListenReports = { warn: () => undefined, listens: () => undefined };

interface Listener {
  key: string;
  scope: McpScope;
  scopeKey: string;
  /** A listen's principal, whose identity change ends it; null for a 2025 session. */
  owner: StreamOwner | null;
  filter: ListenFilter;
  sink: ListenSink;
  seen: Map<UpstreamList, string>;
  hearing: () => boolean;
}

/**
 * Whoever on this replica hears that lists changed: the modern listens (`subscriptions/listen`)
 * open here and the 2025 sessions held here. Portico's own changes reach every replica over the
 * event bus; each replica reads each scope of its listeners once, and tells each listener of the
 * lists it hears of that moved since it last saw them (see movedLists), or ends it when its
 * scope is gone.
 */
export class ListenHub implements OnModuleInit, OnModuleDestroy {
  private readonly listeners = new Map<string, Listener>();
  /** Listens (not sessions) by principal, and all of them: what the limits count. */
  private readonly perSubject = new Map<string, number>();
  private listens = 0;
  private unsubscribe?: () => void;
  private timer?: NodeJS.Timeout;
  /** What upstreams said changed since the last announcement. */
  private announced: Announced[] = [];

  constructor(
    private readonly bus: EventBus,
    /** The scope's directory (after the bus has invalidated it); null when its server is gone. */
    private readonly versions: (scope: McpScope) => Promise<ListVersions | null>,
    private readonly limits: ListenLimits = DEFAULT_LISTEN_LIMITS,
    private readonly reports: ListenReports = QUIET,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => this.onEvent(event));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearTimeout(this.timer);
    for (const listener of [...this.listeners.values()]) this.end(listener, 'shutdown');
  }

  /** Listens and sessions held. */
  get size(): number {
    return this.listeners.size;
  }

  /** Registers the listen and writes its acknowledgement, before any other notification. */
  async open(request: ListenRequest): Promise<ListenOpened> {
    const subject = request.owner.subject;
    if (this.listens >= this.limits.total) return { ok: false, refusal: 'replica-limit' };
    if ((this.perSubject.get(subject) ?? 0) >= this.limits.perPrincipal)
      return { ok: false, refusal: 'principal-limit' };
    const current = await this.versions(request.scope);
    if (!current) return { ok: false, refusal: 'scope-gone' };
    // Checked again: other listens may have opened while the versions were read.
    if (this.listens >= this.limits.total) return { ok: false, refusal: 'replica-limit' };
    if ((this.perSubject.get(subject) ?? 0) >= this.limits.perPrincipal)
      return { ok: false, refusal: 'principal-limit' };
    const listen = this.add({
      scope: request.scope,
      owner: request.owner,
      filter: honouredFilter(request.filter),
      sink: stamped(request.sink, request.requestId),
      seen: seenNow(current),
      hearing: () => true,
    });
    this.listens += 1;
    this.reports.listens(this.listens);
    this.perSubject.set(subject, (this.perSubject.get(subject) ?? 0) + 1);
    this.send(listen, 'notifications/subscriptions/acknowledged', { notifications: listen.filter });
    return {
      ok: true,
      listen: {
        filter: listen.filter,
        resourceUpdated: (uri) => {
          if (this.listeners.has(listen.key))
            this.send(listen, 'notifications/resources/updated', { uri });
        },
        taskStatus: (task) => {
          if (this.listeners.has(listen.key)) this.send(listen, 'notifications/tasks', task);
        },
        drop: (reason) => this.end(listen, reason),
        close: () => this.forget(listen),
      },
    };
  }

  /**
   * Holds a 2025 session until the returned function is called (the session closed here) or the
   * hub ends it. Not counted among listens: its stream is counted where it is opened.
   */
  join(session: SessionListener): () => void {
    const listener = this.add({ ...session, owner: null });
    return () => this.forget(listener);
  }

  private add(listener: Omit<Listener, 'key' | 'scopeKey'>): Listener {
    const added = { ...listener, key: randomUUID(), scopeKey: scopeKey(listener.scope) };
    this.listeners.set(added.key, added);
    return added;
  }

  private onEvent(event: PorticoEvent): void {
    if (event.type === 'lists.announced') this.announced.push(event);
    if (MOVES.has(event.type)) {
      // The directories drop what they held on this same event, in the bus's one dispatch to
      // every handler: the timer runs after it, so announce reads them rebuilt.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.announce(), ANNOUNCE_DEBOUNCE_MS);
    } else if (event.type === 'identity.changed') {
      const affected = affectedBy(event);
      for (const listener of [...this.listeners.values()]) {
        if (!listener.owner || !affected(listener.owner)) continue;
        // What the principal may see may have changed: say so, then let the client listen again.
        for (const kind of UPSTREAM_LISTS)
          if (asksFor(listener.filter, kind) && !this.listChanged(listener, kind)) break;
        if (this.listeners.has(listener.key)) this.end(listener, 'identity-changed');
      }
    }
  }

  /**
   * Reads each scope with listeners once, and tells each listener that hears now what moved that
   * it hears of; every listener of a scope that is gone ends.
   */
  private async announce(): Promise<void> {
    const announced = this.announced;
    this.announced = [];
    const byScope = new Map<string, Listener[]>();
    for (const listener of this.listeners.values()) {
      const listeners = byScope.get(listener.scopeKey);
      if (listeners) listeners.push(listener);
      else byScope.set(listener.scopeKey, [listener]);
    }
    for (const [key, listeners] of byScope) {
      let current: ListVersions | null;
      try {
        current = await this.versions(listeners[0]!.scope);
      } catch (error) {
        this.reports.warn(`Could not read the lists of ${key}: ${String(error)}`);
        continue;
      }
      for (const listener of listeners) {
        if (!this.listeners.has(listener.key)) continue;
        if (!current) {
          this.end(listener, 'scope-gone');
          continue;
        }
        if (!listener.hearing()) continue;
        for (const kind of movedLists(listener.seen, current, announced))
          if (asksFor(listener.filter, kind) && !this.listChanged(listener, kind)) break;
      }
    }
  }

  private listChanged(listener: Listener, kind: UpstreamList): boolean {
    return this.send(listener, `notifications/${kind}/list_changed`);
  }

  /** Writes one notification; a sink that cannot take it loses its listener. */
  private send(listener: Listener, method: string, params?: Record<string, unknown>): boolean {
    const message: JSONRPCNotification = { jsonrpc: '2.0', method, ...(params ? { params } : {}) };
    let written = false;
    try {
      written = listener.sink.write(message);
    } catch (error) {
      this.reports.warn(`A listener's stream failed: ${String(error)}`);
    }
    if (!written) this.end(listener, 'slow');
    return written;
  }

  private end(listener: Listener, reason: ListenEnd): void {
    if (!this.forget(listener)) return;
    try {
      listener.sink.end(reason);
    } catch (error) {
      this.reports.warn(`A listener's stream did not end cleanly: ${String(error)}`);
    }
  }

  private forget(listener: Listener): boolean {
    if (!this.listeners.delete(listener.key)) return false;
    if (!listener.owner) return true;
    this.listens -= 1;
    this.reports.listens(this.listens);
    const left = (this.perSubject.get(listener.owner.subject) ?? 1) - 1;
    if (left > 0) this.perSubject.set(listener.owner.subject, left);
    else this.perSubject.delete(listener.owner.subject);
    return true;
  }
}

/** A listen's sink: every notification on it carries the listen's id. */
function stamped(sink: ListenSink, requestId: string | number): ListenSink {
  return {
    write: (message) =>
      sink.write({
        ...message,
        params: { ...message.params, _meta: { [SUBSCRIPTION_ID]: requestId } },
      }),
    end: (reason) => sink.end(reason),
  };
}
