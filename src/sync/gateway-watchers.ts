import { isDeepStrictEqual } from 'node:util';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { EventBus, isResync, type UpstreamList } from '../events/event-bus';
import { Gateway } from '../gateways/gateway.entity';
import { upstreamFingerprint } from '../upstream/upstream-target';
import { CatalogueReader } from './catalogue.reader';
import { GatewayWatch } from './gateway-watch';
import { SyncLeadership } from './sync-leadership';
import { SyncService } from './sync.service';

const WATCHED_COLUMNS = {
  id: true,
  slug: true,
  url: true,
  transport: true,
  authType: true,
  authSecret: true,
  stdioCommand: true,
  stdioArgs: true,
  stdioCwd: true,
  stdioEnv: true,
  enabled: true,
  eraPin: true,
  protocolEra: true,
  protocolVersion: true,
  protocolSupportedVersions: true,
  protocolExtensions: true,
  protocolCheckedAt: true,
  protocolEndpoint: true,
  settings: true,
} as const;

/**
 * One GatewayWatch per enabled gateway, in the leading replica only. Gateway changes arrive as
 * `catalog.changed` events (from any replica), and each one re-reads the named gateways (all of
 * them after a resync, when the bus may have missed events): a new or re-activated gateway gets a
 * watch, a moved one (URL, transport, credentials) or one with new settings (its own timeout) a
 * fresh watch, a deactivated or deleted one loses it.
 */
@Injectable()
export class GatewayWatchers implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(GatewayWatchers.name);
  private readonly watches = new Map<string, GatewayWatch>();
  private readonly unsubscribe: (() => void)[] = [];
  /** Reconciliations run one after another, so that two never start watches for one gateway. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: CatalogueReader,
    private readonly sync: SyncService,
    private readonly leadership: SyncLeadership,
    private readonly events: EventBus,
  ) {}

  /** Ids of the gateways watched by this replica. */
  get watchedGatewayIds(): string[] {
    return [...this.watches.keys()];
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.leadership.onChange((leading) =>
        this.enqueue(() => this.reconcile(leading ? null : [])),
      ),
      this.events.subscribe((event) => {
        if (event.type !== 'catalog.changed' || !this.leadership.isLeader) return;
        // After a resync (events may have been missed) every gateway is read again.
        this.enqueue(() => this.reconcile(isResync(event) ? null : event.gatewayIds));
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.enqueue(() => this.reconcile([]));
    await this.queue;
  }

  /**
   * Syncs the gateway, then passes on the lists its upstream said changed, so that their followers
   * hear of it even when the sync changed nothing Portico lists.
   */
  private async changed(id: string, reason: string, lists: readonly UpstreamList[]): Promise<void> {
    await this.sync.trigger(id, reason);
    if (lists.length === 0) return;
    await this.events
      .publish({ type: 'lists.announced', gatewayId: id, lists: [...lists] })
      .catch((error: unknown) =>
        this.logger.warn(`Could not announce list changes: ${String(error)}`),
      );
  }

  private health(recorded: Promise<void>): void {
    recorded.catch((error: unknown) => {
      this.logger.warn(`Could not record gateway health: ${String(error)}`);
    });
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      this.logger.error(
        'Could not update upstream watches',
        error instanceof Error ? error.stack : String(error),
      );
    });
  }

  /**
   * Brings the watches of the given gateways in line with the database; `null` means all
   * gateways, and an empty list (on losing leadership, at shutdown) stops every watch.
   */
  private async reconcile(gatewayIds: string[] | null): Promise<void> {
    const stopAll = gatewayIds !== null && gatewayIds.length === 0;
    const gateways = stopAll
      ? []
      : await this.dataSource.getRepository(Gateway).find({
          select: WATCHED_COLUMNS,
          where: gatewayIds === null ? { enabled: true } : { id: In(gatewayIds) },
        });
    const wanted = new Map(gateways.filter((g) => g.enabled).map((g) => [g.id, g]));
    const considered = stopAll || gatewayIds === null ? [...this.watches.keys()] : gatewayIds;
    for (const id of new Set([...considered, ...wanted.keys()])) {
      const gateway = wanted.get(id);
      const current = this.watches.get(id);
      // Its own settings (timeout, retries) are the watch's too: a change restarts it.
      if (
        current &&
        gateway &&
        current.fingerprint === upstreamFingerprint(gateway) &&
        isDeepStrictEqual(current.gateway.settings ?? null, gateway.settings ?? null)
      )
        continue;
      if (current) {
        this.watches.delete(id);
        await current.stop();
      }
      if (gateway && this.leadership.isLeader) {
        const fingerprint = upstreamFingerprint(gateway);
        const watch = new GatewayWatch(
          gateway,
          this.reader,
          {
            changed: (reason, lists) => void this.changed(id, reason, lists),
            lost: (reason, status) =>
              this.health(this.sync.markFailed(id, status, reason, fingerprint)),
            seen: () => this.health(this.sync.markSeen(id)),
          },
          this.logger,
        );
        this.watches.set(id, watch);
        watch.start();
      }
    }
  }
}
