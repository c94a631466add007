import { randomUUID } from 'node:crypto';
import { type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type JSONRPCNotification } from '@modelcontextprotocol/server';
import { type EventBus, type PorticoEvent } from '../../events/event-bus';
import { type ListKind } from '../directory/scope-directory';
import { type McpScope, scopeKey } from '../protocol/mcp-scope';
import { affectedBy, type StreamOwner } from './identity-change';
import { asksFor, honouredFilter, type ListenFilter } from './listen-filter';
import { movedLists, seenNow, type ListVersions } from './list-versions';

export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Changes come in bursts (a sync, a config apply): one announcement covers a burst. */
const ANNOUNCE_DEBOUNCE_MS = 100;

/**
 * Where a listen's notifications go: its response stream. `write` returns false when the sink
 * cannot take more now (a client that does not read); the hub then drops the listen rather than
 * buffer for it. `end` is called once, when the hub ends the listen.
 */
export interface ListenSink {
  write(message: JSONRPCNotification): boolean;
  end(reason: ListenEnd): void;
}

/**
 * Why the hub ended a listen. `scope-gone` and `shutdown` are graceful ends (answer the listen
 * with its result); after `identity-changed`, `slow`, `upstream-lost` and `credential-expired`
 * the stream should just drop, so that a client still entitled listens again.
 */
export type ListenEnd =
  'scope-gone' | 'identity-changed' | 'slow' | 'upstream-lost' | 'credential-expired' | 'shutdown';

/** Why the listen's own stream drops it: an upstream it follows lost, or its credential expired. */
export type ListenDrop = Extract<ListenEnd, 'upstream-lost' | 'credential-expired'>;

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
  /**
   * It can no longer hear what it asked for (an upstream lost), or its credential expired: it
   * drops without a result, so that the client listens again (with a fresh credential).
   */
  drop(reason: ListenDrop): void;
  /** The client went away: forget the listen (the sink is not told). */
  close(): void;
}

export interface ListenLimits {
  perPrincipal: number;
  total: number;
}

export const DEFAULT_LISTEN_LIMITS: ListenLimits = { perPrincipal: 16, total: 10_000 };

interface Listen {
  key: string;
  requestId: string | number;
  scope: McpScope;
  scopeKey: string;
  owner: StreamOwner;
  filter: ListenFilter;
  sink: ListenSink;
  seen: Map<ListKind, string>;
}

/**
 * The modern listens (`subscriptions/listen`) open on this replica. Portico's own changes reach
 * every replica over the event bus; each replica tells its own listens about the lists of their
 * scope that moved, exactly as ListChanges tells 2025 sessions (see movedLists).
 */
export class ListenHub implements OnModuleInit, OnModuleDestroy {
  private readonly listens = new Map<string, Listen>();
  private readonly perSubject = new Map<string, number>();
  private unsubscribe?: () => void;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly bus: EventBus,
    /** The scope's directory (after the bus has invalidated it); null when its server is gone. */
    private readonly versions: (scope: McpScope) => Promise<ListVersions | null>,
    private readonly limits: ListenLimits = DEFAULT_LISTEN_LIMITS,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => this.onEvent(event));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearTimeout(this.timer);
    for (const listen of [...this.listens.values()]) this.end(listen, 'shutdown');
  }

  get size(): number {
    return this.listens.size;
  }

  /** Registers the listen and writes its acknowledgement, before any other notification. */
  async open(request: ListenRequest): Promise<ListenOpened> {
    const subject = request.owner.subject;
    if (this.listens.size >= this.limits.total) return { ok: false, refusal: 'replica-limit' };
    if ((this.perSubject.get(subject) ?? 0) >= this.limits.perPrincipal)
      return { ok: false, refusal: 'principal-limit' };
    const current = await this.versions(request.scope);
    if (!current) return { ok: false, refusal: 'scope-gone' };
    // Checked again: other listens may have opened while the versions were read.
    if (this.listens.size >= this.limits.total) return { ok: false, refusal: 'replica-limit' };
    if ((this.perSubject.get(subject) ?? 0) >= this.limits.perPrincipal)
      return { ok: false, refusal: 'principal-limit' };
    const listen: Listen = {
      key: randomUUID(),
      requestId: request.requestId,
      scope: request.scope,
      scopeKey: scopeKey(request.scope),
      owner: request.owner,
      filter: honouredFilter(request.filter),
      sink: request.sink,
      seen: seenNow(current),
    };
    this.listens.set(listen.key, listen);
    this.perSubject.set(subject, (this.perSubject.get(subject) ?? 0) + 1);
    this.send(listen, 'notifications/subscriptions/acknowledged', { notifications: listen.filter });
    return {
      ok: true,
      listen: {
        filter: listen.filter,
        resourceUpdated: (uri) => {
          if (this.listens.has(listen.key))
            this.send(listen, 'notifications/resources/updated', { uri });
        },
        drop: (reason) => this.end(listen, reason),
        close: () => this.forget(listen),
      },
    };
  }

  private onEvent(event: PorticoEvent): void {
    if (event.type === 'catalog.changed' || event.type === 'servers.changed') {
      // Directories drop what they held on the same event; by the time this runs they rebuild.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.announce(), ANNOUNCE_DEBOUNCE_MS);
    } else if (event.type === 'identity.changed') {
      const affected = affectedBy(event);
      for (const listen of [...this.listens.values()]) {
        if (!affected(listen.owner)) continue;
        // What the principal may see may have changed: say so, then let the client listen again.
        for (const kind of ['tools', 'resources', 'prompts'] as const)
          if (asksFor(listen.filter, kind) && !this.listChanged(listen, kind)) break;
        if (this.listens.has(listen.key)) this.end(listen, 'identity-changed');
      }
    }
  }

  /** Reads each scope with listens once, and tells each listen what moved that it asked for. */
  private async announce(): Promise<void> {
    const byScope = new Map<string, Listen[]>();
    for (const listen of this.listens.values()) {
      const listens = byScope.get(listen.scopeKey);
      if (listens) listens.push(listen);
      else byScope.set(listen.scopeKey, [listen]);
    }
    for (const [key, listens] of byScope) {
      let current: ListVersions | null;
      try {
        current = await this.versions(listens[0]!.scope);
      } catch (error) {
        this.onError(`Could not read the lists of ${key}: ${String(error)}`);
        continue;
      }
      for (const listen of listens) {
        if (!this.listens.has(listen.key)) continue;
        if (!current) {
          this.end(listen, 'scope-gone');
          continue;
        }
        for (const kind of movedLists(listen.seen, current))
          if (asksFor(listen.filter, kind) && !this.listChanged(listen, kind)) break;
      }
    }
  }

  private listChanged(listen: Listen, kind: ListKind): boolean {
    return this.send(listen, `notifications/${kind}/list_changed`, {});
  }

  /** Writes one notification; a sink that cannot take it loses its listen. */
  private send(listen: Listen, method: string, params: Record<string, unknown>): boolean {
    const message: JSONRPCNotification = {
      jsonrpc: '2.0',
      method,
      params: { ...params, _meta: { [SUBSCRIPTION_ID]: listen.requestId } },
    };
    let written = false;
    try {
      written = listen.sink.write(message);
    } catch (error) {
      this.onError(`A listen's stream failed: ${String(error)}`);
    }
    if (!written) this.end(listen, 'slow');
    return written;
  }

  private end(listen: Listen, reason: ListenEnd): void {
    if (!this.forget(listen)) return;
    try {
      listen.sink.end(reason);
    } catch (error) {
      this.onError(`A listen's stream did not end cleanly: ${String(error)}`);
    }
  }

  private forget(listen: Listen): boolean {
    if (!this.listens.delete(listen.key)) return false;
    const left = (this.perSubject.get(listen.owner.subject) ?? 1) - 1;
    if (left > 0) this.perSubject.set(listen.owner.subject, left);
    else this.perSubject.delete(listen.owner.subject);
    return true;
  }
}
