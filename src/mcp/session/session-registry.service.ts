import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventBus, isResync, type PorticoEvent } from '../../events/event-bus';
import { ReplicaId } from '../../events/events.module';
import { Metrics } from '../../health/metrics';
import { UpstreamConnector } from '../../upstream/upstream-connector.service';
import { UpstreamTargets } from '../../upstream/upstream-targets.service';
import { Directories } from '../calls/directories.service';
import { LISTS } from '../calls/scope-directory';
import { busRelay } from './bus-relay';
import { SessionRuntime } from './session-runtime';
import { SessionUpstreams } from './session-upstreams';
import { type SessionState, SessionStore } from './session.store';
import { StreamEvents } from './stream-events.store';

const IDLE_EVICT_MS = 10 * 60_000;
const LIST_CHANGED_DEBOUNCE_MS = 100;

/** Notifications an upstream sends outside calls that Portico answers itself (sync does). */
const PORTICO_OWNS = new Set([
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
]);

/**
 * The sessions this replica serves, built on demand from their stored records, and kept in step
 * with what other replicas announce on the bus.
 */
@Injectable()
export class SessionRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionRegistry.name);
  private readonly runtimes = new Map<string, SessionRuntime>();
  private unsubscribe: (() => void)[] = [];
  private evictTimer?: NodeJS.Timeout;
  private listChangedTimer?: NodeJS.Timeout;

  constructor(
    private readonly replica: ReplicaId,
    private readonly store: SessionStore,
    private readonly events: StreamEvents,
    private readonly connector: UpstreamConnector,
    private readonly targets: UpstreamTargets,
    private readonly directories: Directories,
    private readonly bus: EventBus,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = [
      this.bus.subscribe(
        (event) =>
          void this.onEvent(event).catch((error: unknown) =>
            this.logger.warn(`Could not handle ${event.type}: ${String(error)}`),
          ),
      ),
      // After the directories dropped what they held, so that what is read next is current.
      this.directories.onInvalidated((event) => {
        this.scheduleListChanged();
        if (event.type === 'servers.changed')
          void this.closeOrphans(event.serverIds).catch((error: unknown) =>
            this.logger.warn(`Could not close sessions of changed servers: ${String(error)}`),
          );
      }),
    ];
    this.evictTimer = setInterval(() => void this.evictIdle(), 60_000).unref();
  }

  async onModuleDestroy(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    clearInterval(this.evictTimer);
    clearTimeout(this.listChangedTimer);
    await Promise.all([...this.runtimes.keys()].map((id) => this.close(id)));
  }

  /** This replica's runtime of a stored session, built if it has none yet. */
  obtain(session: SessionState): SessionRuntime {
    let runtime = this.runtimes.get(session.id);
    if (!runtime) {
      runtime = this.build(session);
      this.runtimes.set(session.id, runtime);
      this.metrics.sessions.set(this.runtimes.size);
    }
    runtime.lastUsed = Date.now();
    return runtime;
  }

  local(sessionId: string): SessionRuntime | undefined {
    return this.runtimes.get(sessionId);
  }

  async close(sessionId: string): Promise<void> {
    const runtime = this.runtimes.get(sessionId);
    this.runtimes.delete(sessionId);
    this.metrics.sessions.set(this.runtimes.size);
    await runtime?.close();
  }

  private build(session: SessionState): SessionRuntime {
    return new SessionRuntime(session, {
      replicaId: this.replica.value,
      relay: busRelay(this.bus, session.id, this.logger),
      events: this.events,
      upstreams: (runtime) =>
        new SessionUpstreams(
          () => runtime.session.initializeParams?.capabilities ?? {},
          this.connector,
          this.targets,
          (gatewayId) => ({
            notification: (notification) => {
              if (notification.method === 'notifications/resources/updated')
                runtime.resourceUpdated(gatewayId, notification.params ?? {});
              else if (!PORTICO_OWNS.has(notification.method)) runtime.toClient(notification);
            },
            request: (request) => runtime.ask(request),
          }),
        ),
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
        if (isResync(event)) await this.resync();
        else await this.refreshUpstreams(event.gatewayIds);
        return;
      case 'servers.changed':
        // Answered once the directories have dropped what they held: see onModuleInit.
        return;
      case 'identity.changed':
        return;
    }
  }

  /**
   * The bus may have lost events: sessions ended, levels set, gateways and servers changed. Each
   * local runtime is checked against the database. (The directories drop their cache on the same
   * event, and their invalidation schedules list_changed for open streams.)
   */
  private async resync(): Promise<void> {
    await this.reload([...this.runtimes.keys()]);
    const gateways = [...this.runtimes.values()].flatMap((runtime) => runtime.upstreams.gatewayIds);
    await this.refreshUpstreams([...new Set(gateways)]);
    await this.closeOrphans([]);
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
      if (levelChanged) await runtime.upstreams.setLogLevel(state.logLevel);
      await runtime.reconcileSubscriptions();
    }
  }

  /** Gateways changed: upstream sessions whose endpoint changed or went away are retired. */
  private async refreshUpstreams(gatewayIds: readonly string[]): Promise<void> {
    if (this.runtimes.size === 0 || gatewayIds.length === 0) return;
    const targets = new Map(
      await Promise.all(gatewayIds.map(async (id) => [id, await this.targets.find(id)] as const)),
    );
    await Promise.all(
      [...this.runtimes.values()].map((runtime) => runtime.upstreams.refresh(targets)),
    );
  }

  /**
   * Servers changed (all of them when no ids are given): sessions of a server that was deleted or
   * disabled are closed here, their streams ended. Deletion removes the session rows without any
   * session event, and requests would only fail one by one.
   */
  private async closeOrphans(serverIds: readonly string[]): Promise<void> {
    for (const runtime of [...this.runtimes.values()]) {
      const serverId = runtime.session.serverId;
      if (serverId === null || (serverIds.length > 0 && !serverIds.includes(serverId))) continue;
      if (!(await this.directories.get(runtime.scope))) await this.close(runtime.id);
    }
  }

  /** After the catalogue changed, tells each client with a stream open here if its list changed. */
  private scheduleListChanged(): void {
    clearTimeout(this.listChangedTimer);
    this.listChangedTimer = setTimeout(() => void this.sendListChanged(), LIST_CHANGED_DEBOUNCE_MS);
  }

  /** Each list whose version moved since the client last saw it gets its list_changed. */
  private async sendListChanged(): Promise<void> {
    for (const runtime of [...this.runtimes.values()]) {
      if (!runtime.hasStream) continue;
      try {
        const directory = await this.directories.get(runtime.scope);
        for (const kind of LISTS) {
          const version = directory?.version(kind) ?? '';
          if (runtime.seen.get(kind) === version) continue;
          runtime.seen.set(kind, version);
          runtime.toClient({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
        }
      } catch (error) {
        this.logger.warn(`Could not announce a list change: ${String(error)}`);
      }
    }
  }

  private async evictIdle(): Promise<void> {
    const cutoff = Date.now() - IDLE_EVICT_MS;
    for (const runtime of [...this.runtimes.values()]) {
      if (runtime.lastUsed < cutoff && !runtime.hasStream && runtime.inFlight === 0)
        await this.close(runtime.id);
    }
  }
}
