import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type Implementation } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
import { EventBus, isResync, type PorticoEvent } from '../../events/event-bus';
import { Metrics } from '../../health/metrics';
import { ReplicaId } from '../../events/events.module';
import { McpApps } from '../apps/mcp-apps.service';
import { type ToolDirectory } from '../directory/tool-directory';
import { ToolDirectoryService } from '../directory/tool-directory.service';
import { scopeOf } from '../mcp-scope';
import { ToolSearchService } from '../search/tool-search.service';
import { UpstreamPools } from '../upstream/upstream-pools.service';
import { UpstreamTargets } from '../upstream/upstream-targets.service';
import { busRelay } from './bus-relay';
import { type RuntimeContext, SessionRuntime } from './session-runtime';
import { type SessionState, SessionStore } from './session.store';

const IDLE_EVICT_MS = 10 * 60_000;
const LIST_CHANGED_DEBOUNCE_MS = 100;

/** The sessions this replica currently serves, built on demand from their stored records. */
@Injectable()
export class SessionRuntimes implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionRuntimes.name);
  private readonly runtimes = new Map<string, Promise<SessionRuntime>>();
  private readonly context: RuntimeContext;
  private unsubscribe: (() => void)[] = [];
  private evictTimer?: NodeJS.Timeout;
  private listChangedTimer?: NodeJS.Timeout;

  constructor(
    config: AppConfig,
    replica: ReplicaId,
    private readonly store: SessionStore,
    private readonly targets: UpstreamTargets,
    pools: UpstreamPools,
    toolSearch: ToolSearchService,
    apps: McpApps,
    private readonly directories: ToolDirectoryService,
    private readonly bus: EventBus,
    private readonly metrics: Metrics,
  ) {
    this.context = {
      config,
      replicaId: replica.value,
      directories,
      store,
      toolSearch,
      targets,
      pools,
      metrics,
      apps,
      relay: (sessionId) => busRelay(bus, sessionId, this.logger),
    };
  }

  onModuleInit(): void {
    this.unsubscribe = [
      this.bus.subscribe(
        (event) =>
          void this.onEvent(event).catch((error: unknown) =>
            this.logger.warn(`Could not handle ${event.type}: ${String(error)}`),
          ),
      ),
      this.directories.onInvalidated(() => this.scheduleListChanged()),
    ];
    this.evictTimer = setInterval(
      () =>
        void this.evictIdle().catch((error: unknown) =>
          this.logger.warn(`Could not evict idle sessions: ${String(error)}`),
        ),
      60_000,
    ).unref();
  }

  async onModuleDestroy(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    clearInterval(this.evictTimer);
    clearTimeout(this.listChangedTimer);
    await Promise.all([...this.runtimes.keys()].map((id) => this.close(id)));
  }

  /** A runtime for a session that has just been created by its initialize. */
  async create(session: SessionState, directory: ToolDirectory): Promise<SessionRuntime> {
    const runtime = new SessionRuntime(session, serverInfo(directory), this.context);
    await runtime.start();
    this.runtimes.set(session.id, Promise.resolve(runtime));
    this.metrics.sessions.set(this.runtimes.size);
    return runtime;
  }

  /** This replica's runtime for a stored session, restoring it if this replica has none yet. */
  obtain(session: SessionState): Promise<SessionRuntime> {
    let runtime = this.runtimes.get(session.id);
    if (!runtime) {
      runtime = this.restore(session);
      this.runtimes.set(session.id, runtime);
      this.metrics.sessions.set(this.runtimes.size);
      runtime.catch(() => this.runtimes.delete(session.id));
    }
    return runtime.then((ready) => {
      ready.lastUsed = Date.now();
      return ready;
    });
  }

  async close(sessionId: string): Promise<void> {
    const runtime = this.runtimes.get(sessionId);
    this.runtimes.delete(sessionId);
    this.metrics.sessions.set(this.runtimes.size);
    await (await runtime?.catch(() => null))?.close();
  }

  private async restore(session: SessionState): Promise<SessionRuntime> {
    const directory = await this.directories.get(scopeOf(session.serverId));
    const runtime = new SessionRuntime(session, serverInfo(directory), this.context);
    await runtime.start();
    await runtime.restore();
    return runtime;
  }

  private async onEvent(event: PorticoEvent): Promise<void> {
    switch (event.type) {
      case 'mcp.session.changed':
        if (event.ended) await this.close(event.sessionId);
        else await this.reloadOne(event.sessionId);
        return;
      case 'mcp.to-client':
        (await this.local(event.sessionId))?.transport.writeToStream(event.message);
        return;
      case 'mcp.from-client':
        (await this.local(event.sessionId))?.transport.receiveRelayed(event.message);
        return;
      case 'catalog.changed':
        if (isResync(event)) await this.resync();
        else await this.refreshUpstreams(event.gatewayIds);
        return;
      case 'servers.changed':
        await this.closeOrphans(event.serverIds);
        return;
      case 'identity.changed':
        return;
    }
  }

  /**
   * The bus may have lost events: sessions ended, levels set, gateways and servers changed. Each
   * local runtime is checked against the database. (The directory drops its cache on the same
   * event, and its invalidation schedules list_changed for open streams.)
   */
  private async resync(): Promise<void> {
    const runtimes = await this.all();
    await this.reload(runtimes);
    await this.refreshUpstreams([
      ...new Set(runtimes.flatMap((runtime) => runtime.upstreamGateways)),
    ]);
    await this.closeOrphans([]);
  }

  /** Applies the stored state of local sessions (log level); closes those that ended. */
  private async reload(runtimes: readonly SessionRuntime[]): Promise<void> {
    if (runtimes.length === 0) return;
    const levels = await this.store.logLevels(runtimes.map((runtime) => runtime.session.id));
    for (const runtime of runtimes) {
      const level = levels.get(runtime.session.id);
      if (level === undefined) await this.close(runtime.session.id);
      else await runtime.applyLogLevel(level);
    }
  }

  private async reloadOne(sessionId: string): Promise<void> {
    const runtime = await this.local(sessionId);
    if (runtime) await this.reload([runtime]);
  }

  /** Gateways changed: upstream sessions whose endpoint changed or went away are retired. */
  private async refreshUpstreams(gatewayIds: readonly string[]): Promise<void> {
    const runtimes = await this.all();
    if (runtimes.length === 0 || gatewayIds.length === 0) return;
    const targets = new Map(
      await Promise.all(gatewayIds.map(async (id) => [id, await this.targets.find(id)] as const)),
    );
    await Promise.all(runtimes.map((runtime) => runtime.refreshUpstreams(targets)));
  }

  /**
   * Servers changed (all of them when no ids are given): sessions of a server that was deleted or
   * disabled are closed here, their GET streams ended. Deletion removes the session rows without
   * any session event, and requests would only fail one by one.
   */
  private async closeOrphans(serverIds: readonly string[]): Promise<void> {
    for (const runtime of await this.all()) {
      const serverId = runtime.session.serverId;
      if (serverId === null || (serverIds.length > 0 && !serverIds.includes(serverId))) continue;
      if (!(await this.directories.get(runtime.scope))) await this.close(runtime.session.id);
    }
  }

  /** After the catalogue changed, tells each client with an open stream here if its list changed. */
  private scheduleListChanged(): void {
    clearTimeout(this.listChangedTimer);
    this.listChangedTimer = setTimeout(() => void this.sendListChanged(), LIST_CHANGED_DEBOUNCE_MS);
  }

  private async sendListChanged(): Promise<void> {
    for (const runtime of await this.all()) {
      if (!runtime.transport.hasStream) continue;
      try {
        const directory = await this.directories.get(runtime.scope);
        if (directory && directory.fingerprint === runtime.listedFingerprint) continue;
        runtime.listedFingerprint = directory?.fingerprint ?? null;
        await runtime.server.sendToolListChanged();
      } catch (error) {
        this.logger.warn(`Could not announce a tool list change: ${String(error)}`);
      }
    }
  }

  private async local(sessionId: string): Promise<SessionRuntime | null> {
    return (await this.runtimes.get(sessionId)?.catch(() => null)) ?? null;
  }

  private async all(): Promise<SessionRuntime[]> {
    const settled = await Promise.all(
      [...this.runtimes.values()].map((runtime) => runtime.catch(() => null)),
    );
    return settled.filter((runtime): runtime is SessionRuntime => runtime !== null);
  }

  private async evictIdle(): Promise<void> {
    const cutoff = Date.now() - IDLE_EVICT_MS;
    for (const runtime of await this.all()) {
      if (
        runtime.lastUsed < cutoff &&
        !runtime.transport.hasStream &&
        runtime.transport.inFlight === 0
      ) {
        await this.close(runtime.session.id);
      }
    }
  }
}

function serverInfo(directory: ToolDirectory | null): Implementation {
  const name = directory?.server ? `Portico: ${directory.server.name}` : 'Portico';
  return { name, version: '1.0.0' };
}
