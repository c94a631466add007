import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type ClientCapabilities } from '@modelcontextprotocol/server';
import { EventBus, isResync, type PorticoEvent } from '../../events/event-bus';
import { ReplicaId } from '../../events/replica-id';
import { Metrics } from '../../observability/metrics';
import { UpstreamClient } from '../../upstream/upstream-client';
import { relayedCapabilities } from '../../upstream/client-capabilities';
import { SERVER_CAPABILITIES } from '../core/server-identity';
import { affectedBy, type IdentityChange } from '../listen/identity-change';
import { advertisedFilter } from '../listen/listen-filter';
import { ListenHub } from '../listen/listen-hub';
import { busRelay } from './bus-relay';
import { SessionRuntime } from './session-runtime';
import { type SessionState, SessionStore } from './session.store';
import { StreamEvents } from './stream-events.store';
import { ResourceWatch } from '../listen/resource-watch';

const IDLE_EVICT_MS = 10 * 60_000;
/** How long a stopping replica keeps serving what still arrives before it waits for quiet. */
const DRAIN_SETTLE_MS = 1000;

/** Notifications an upstream sends outside calls that Portico answers itself (sync does). */
const PORTICO_OWNS = new Set([
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
]);

/** What a session's stream hears of: the lists Portico says may change. */
const SESSION_LISTS = advertisedFilter(SERVER_CAPABILITIES);

/**
 * The sessions this replica serves, built on demand from their stored records, and kept in step
 * with what other replicas announce on the bus. Each is held by the listen hub while it is here,
 * which tells it of list changes on its stream, and closes it when its server goes away.
 */
@Injectable()
export class SessionRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionRegistry.name);
  private readonly runtimes = new Map<string, SessionRuntime>();
  /** Per session held here: how it leaves the listen hub. */
  private readonly leaves = new Map<string, () => void>();
  private unsubscribe: (() => void)[] = [];
  private evictTimer?: NodeJS.Timeout;

  constructor(
    private readonly replica: ReplicaId,
    private readonly store: SessionStore,
    private readonly events: StreamEvents,
    private readonly client: UpstreamClient,
    private readonly bus: EventBus,
    private readonly metrics: Metrics,
    private readonly hub: ListenHub,
    private readonly watch: ResourceWatch,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = [
      this.bus.subscribe(
        (event) =>
          void this.onEvent(event).catch((error: unknown) =>
            this.logger.warn(`Could not handle ${event.type}: ${String(error)}`),
          ),
      ),
    ];
    this.evictTimer = setInterval(() => void this.evictIdle(), 60_000).unref();
  }

  async onModuleDestroy(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    clearInterval(this.evictTimer);
    await Promise.all([...this.runtimes.keys()].map((id) => this.close(id)));
  }

  /** This replica's runtime of a stored session, built if it has none yet. */
  obtain(session: SessionState): SessionRuntime {
    let runtime = this.runtimes.get(session.id);
    if (!runtime) {
      runtime = this.build(session);
      this.runtimes.set(session.id, runtime);
      this.leaves.set(session.id, this.listen(runtime));
      this.metrics.sessions.set(this.runtimes.size);
    }
    runtime.lastUsed = Date.now();
    return runtime;
  }

  /**
   * For a replica that stops (it already reports itself not ready): lets the requests in flight
   * here finish, until `graceMs` has passed, then ends every stream held here, cleanly, so that
   * clients resume them with `Last-Event-ID` on another replica. Sessions live on in the database.
   */
  async drain(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    // Requests the load balancer sent before it saw the replica not ready are still coming.
    const settled = Date.now() + Math.min(DRAIN_SETTLE_MS, graceMs);
    const busy = () => [...this.runtimes.values()].some((runtime) => runtime.inFlight > 0);
    while (Date.now() < deadline && (Date.now() < settled || busy()))
      await new Promise((resolve) => setTimeout(resolve, 50));
    for (const runtime of this.runtimes.values()) runtime.endStreams();
  }

  /** The sessions this replica holds now. */
  all(): SessionRuntime[] {
    return [...this.runtimes.values()];
  }

  local(sessionId: string): SessionRuntime | undefined {
    return this.runtimes.get(sessionId);
  }

  async close(sessionId: string): Promise<void> {
    const runtime = this.runtimes.get(sessionId);
    this.runtimes.delete(sessionId);
    this.leaves.get(sessionId)?.();
    this.leaves.delete(sessionId);
    this.metrics.sessions.set(this.runtimes.size);
    await runtime?.close();
  }

  /**
   * The session as the hub holds it: it hears while its stream is open here, in 2025 words, and
   * closes here when its server is gone (deletion removes the row without a session event, and
   * requests would only fail one by one).
   */
  private listen(runtime: SessionRuntime): () => void {
    return this.hub.join({
      scope: runtime.scope,
      filter: SESSION_LISTS,
      seen: runtime.seen,
      hearing: () => runtime.hasStream,
      sink: {
        write: (message) => {
          runtime.toClient(message);
          return true;
        },
        end: (reason) => {
          // On shutdown the session lives on in the database; drain ends its streams.
          if (reason === 'scope-gone')
            void this.close(runtime.id).catch((error: unknown) =>
              this.logger.warn(`Could not close session ${runtime.id}: ${String(error)}`),
            );
        },
      },
    });
  }

  private build(session: SessionState): SessionRuntime {
    return new SessionRuntime(session, {
      replicaId: this.replica.value,
      relay: busRelay(this.bus, session.id, this.logger),
      events: this.events,
      client: this.client,
      affinity: (runtime) => {
        // Read as each connection opens and by each 2026-07-28 request (its envelope states
        // them): the older transport learns them late, so they are narrowed once per declaration.
        let relayed: { of: unknown; capabilities: ClientCapabilities } | null = null;
        return {
          key: `session:${session.id}`,
          shared: false,
          get capabilities() {
            const declared = runtime.session.initializeParams?.capabilities;
            if (relayed === null || relayed.of !== declared)
              relayed = { of: declared, capabilities: relayedCapabilities(declared ?? {}) };
            return relayed.capabilities;
          },
          actingFor: {
            userId: session.userId,
            subject: session.exchangeable ? session.subject : null,
          },
          listener: (gatewayId) => ({
            notification: (notification) => {
              if (notification.method === 'notifications/resources/updated')
                this.watch.updated(gatewayId, runtime.affinity, notification.params);
              else if (!PORTICO_OWNS.has(notification.method)) runtime.toClient(notification);
            },
            request: (request) => runtime.ask(request),
          }),
          logLevel: () => runtime.session.logLevel,
        };
      },
    });
  }

  private async onEvent(event: PorticoEvent): Promise<void> {
    switch (event.type) {
      case 'mcp.session.changed':
        if (event.ended) await this.close(event.sessionId);
        else await this.reload([event.sessionId]);
        return;
      case 'mcp.to-client':
        this.runtimes
          .get(event.sessionId)
          ?.deliver(event.streamId, event.message, event.eventId, event.final);
        return;
      case 'mcp.from-client':
        this.runtimes.get(event.sessionId)?.receiveRelayed(event.message);
        return;
      case 'catalog.changed':
        // The upstream client retires connections whose gateway changed; see UpstreamClient.
        if (isResync(event)) await this.reload([...this.runtimes.keys()]);
        return;
      case 'servers.changed':
        // Answered once the directories have dropped what they held: see ListenHub.
        return;
      case 'lists.announced':
        // An upstream's own list change: the ListenHub tells the sessions that follow the list.
        return;
      case 'identity.changed':
        this.endOwnedBy(event);
        return;
      case 'mcp.promotions.changed':
        // Not a session's state: the PromotionStore of every replica drops its copy.
        return;
      case 'mcp.parked.to-owner':
      case 'mcp.parked.to-retry':
      case 'approvals.changed':
        // Calls of the modern wire: see ParkedCalls.
        return;
      case 'oauth.connected':
        // Calls waiting for their user to connect: see ConsentWaits.
        return;
    }
  }

  /**
   * Users, API tokens or OAuth grants were changed or revoked: streams they opened end here (the
   * session's own and resumed ones), and requests they sent, so that no client keeps hearing or
   * waiting on a credential that no longer holds. Every new request is checked anyway; a client
   * still entitled reconnects and resumes. The session itself, which outlives the credentials of
   * its streams, stays.
   */
  private endOwnedBy(change: IdentityChange): void {
    const affected = affectedBy(change);
    for (const runtime of this.runtimes.values()) {
      runtime.endStreams(affected);
      runtime.endRequests(affected);
    }
  }

  /** Applies the stored state of local sessions; closes those that ended. */
  private async reload(sessionIds: readonly string[]): Promise<void> {
    const local = sessionIds.filter((id) => this.runtimes.has(id));
    if (local.length === 0) return;
    const stored = await this.store.current(local);
    for (const id of local) {
      const runtime = this.runtimes.get(id);
      const state = stored.get(id);
      if (!runtime) continue;
      if (!state) {
        await this.close(id);
        continue;
      }
      const levelChanged = runtime.session.logLevel !== state.logLevel;
      Object.assign(runtime.session, state);
      if (levelChanged) await runtime.setUpstreamLogLevel(state.logLevel);
      runtime.reconcileSubscriptions();
    }
  }

  /** Closes runtimes idle for IDLE_EVICT_MS; never rejects, one that fails to close is logged. */
  async evictIdle(now = Date.now()): Promise<void> {
    const cutoff = now - IDLE_EVICT_MS;
    for (const runtime of [...this.runtimes.values()]) {
      if (runtime.lastUsed >= cutoff || runtime.hasStream || runtime.inFlight > 0) continue;
      await this.close(runtime.id).catch((error: unknown) =>
        this.logger.warn(`Could not close idle session ${runtime.id}: ${String(error)}`),
      );
    }
  }
}
