import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.service';
import { EventBus } from '../events/event-bus';
import { Metrics } from '../observability/metrics';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { Gateway } from '../gateways/gateway.entity';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';
import { recordSyncPins } from '../pinning/sync-pin-audit';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { UpstreamFailure, upstreamFailure, UpstreamIncompatible } from '../upstream/upstream-error';
import { failedStatus, type FailedStatus } from './failed-status';
import { upstreamFingerprint } from '../upstream/upstream-target';
import { CatalogueReader, type UpstreamCatalogue } from './catalogue.reader';
import { KeyedSingleFlight } from '../common/keyed-single-flight';
import { SyncApplier } from './sync.applier';
import { type SyncReport } from '../sync-report/sync-report';

/**
 * Gateways synced at once by a periodic round or a configuration document's apply: an
 * unreachable upstream holds one turn until its timeout, not the whole line.
 */
const SYNC_CONCURRENCY = 4;

/** A background sync that finds another replica applying one retries after 0.5, 1, 2 and 4 s. */
const BUSY_RETRIES = 4;
const BUSY_RETRY_MS = 500;

/**
 * Syncs a gateway's tools from its upstream. In this process syncs of one gateway run one at a
 * time (later callers queue, and a burst shares one queued run); across replicas SyncApplier's
 * advisory lock keeps them apart.
 */
@Injectable()
export class SyncService implements OnModuleDestroy {
  private readonly logger = new Logger(SyncService.name);
  private readonly flights = new KeyedSingleFlight<SyncReport>();
  private readonly shutdown = new AbortController();

  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: CatalogueReader,
    private readonly applier: SyncApplier,
    private readonly events: EventBus,
    private readonly metrics: Metrics,
    private readonly audit: AuditTrail,
    private readonly names: ToolNameQuery,
    private readonly settings: UpstreamSettings,
  ) {}

  /** Syncs now, after any sync of this gateway already running here; throws coded errors. */
  sync(gatewayId: string): Promise<SyncReport> {
    return this.flights.run(gatewayId, () => this.syncOnce(gatewayId));
  }

  /**
   * A sync someone asked for by hand: shares the sync of this gateway going or queued here, if
   * any, rather than waiting for it and then running another (twice the upstream timeout when
   * the upstream does not answer).
   */
  syncNow(gatewayId: string): Promise<SyncReport> {
    return this.flights.join(gatewayId, () => this.syncOnce(gatewayId));
  }

  /**
   * The sync after a create, an activation or a connection edit, waited for up to
   * `sync.changeWaitMs` (3 s by default): a reachable upstream answers well within it, so the
   * response already shows the tools; an unreachable one does not hold the request for the whole
   * upstream timeout. Never throws: a failure is recorded on the gateway (status, last error), and
   * the sync goes on in the background if it outlasts the wait.
   */
  async syncAfterChange(gatewayId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, this.settings.syncChangeWaitMs)),
    );
    try {
      await Promise.race([this.trigger(gatewayId, 'gateway change'), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The syncs after a configuration document's changes, SYNC_CONCURRENCY at a time, each waited
   * for as syncAfterChange waits: a document of many slow or unreachable upstreams does not wait
   * for them one after the other.
   */
  syncAfterChanges(gatewayIds: Iterable<string>): Promise<void> {
    return inTurns(gatewayIds, (id) => this.syncAfterChange(id));
  }

  /**
   * A background sync (periodic, list_changed, reconnect); failures are only logged. When another
   * replica is applying a sync of the gateway, that one may have listed the upstream before the
   * change that triggered this, so this one runs again once it is done instead of being dropped.
   */
  async trigger(gatewayId: string, reason: string): Promise<void> {
    for (let attempt = 0; !this.shutdown.signal.aborted; attempt++) {
      try {
        await this.sync(gatewayId);
        return;
      } catch (error) {
        const busy =
          error instanceof GatewayException && error.code === GatewayErrorCode.SyncInProgress;
        if (!busy || attempt === BUSY_RETRIES) {
          this.logFailure(gatewayId, reason, error);
          return;
        }
      }
      await delay(BUSY_RETRY_MS * 2 ** attempt, undefined, { signal: this.shutdown.signal }).catch(
        () => undefined,
      );
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.shutdown.abort(new UpstreamFailure('cancelled', 'Portico is shutting down'));
    await this.flights.idle();
  }

  private async syncOnce(gatewayId: string): Promise<SyncReport> {
    const gateway = await this.dataSource.getRepository(Gateway).findOneBy({ id: gatewayId });
    if (!gateway) {
      throw new GatewayException(GatewayErrorCode.NotFound, `Gateway ${gatewayId} does not exist.`);
    }
    if (!gateway.enabled) {
      throw new GatewayException(
        GatewayErrorCode.Disabled,
        `Gateway '${gateway.name}' is deactivated; activating it syncs it.`,
      );
    }
    let upstream: UpstreamCatalogue;
    try {
      upstream = await this.reader.read(gateway, this.shutdown.signal);
    } catch (error) {
      const failure = upstreamFailure(error, this.reader.timeoutMs);
      // Portico's own failure says nothing of the upstream's health: thrown on, and logged.
      if (failure.kind === 'internal') throw error;
      const reason = failure.message;
      const status = failedStatus(failure);
      this.metrics.syncs.inc({ outcome: status });
      if (!this.shutdown.signal.aborted)
        await this.markFailed(gatewayId, status, reason, upstreamFingerprint(gateway));
      // A version mismatch is no outage: the upstream answered, and a retry changes nothing.
      if (failure instanceof UpstreamIncompatible)
        throw new GatewayException(
          GatewayErrorCode.UpstreamIncompatible,
          `Could not sync gateway '${gateway.name}': ${reason}.`,
          { gatewayId, supportedVersions: failure.supportedVersions },
        );
      // Its own 429 or 503 that said when to try again is passed on as Retry-After.
      throw new GatewayException(
        status === 'failing'
          ? GatewayErrorCode.UpstreamFailing
          : GatewayErrorCode.UpstreamUnavailable,
        `Could not sync gateway '${gateway.name}' from ${gateway.url}: ${reason}.`,
        failure.retryAt
          ? { gatewayId, retryAfterSeconds: failure.retryAfterSeconds() }
          : { gatewayId },
      );
    }
    const { report, stored, changed } = await this.applier.apply(
      gatewayId,
      upstreamFingerprint(gateway),
      upstream,
    );
    this.metrics.syncs.inc({ outcome: changed ? 'changed' : 'unchanged' });
    if (changed)
      await recordSyncPins(this.audit, this.dataSource.manager, this.names, gateway, report);
    if (changed) await this.events.publish({ type: 'catalog.changed', gatewayIds: [gatewayId] });
    return stored;
  }

  /**
   * The stored catalogue stays as it was; only the health columns say what went wrong. `failed`
   * is the upstream fingerprint that failed: once an edit points the gateway elsewhere, a late
   * failure of the old upstream (a watch or a sync still on it) no longer speaks for the gateway,
   * whose new upstream a sync may already have found healthy. `status` says whether anything
   * answered (see failedStatus).
   */
  async markFailed(
    gatewayId: string,
    status: FailedStatus,
    reason: string,
    failed: string,
  ): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const gateway = await em
        .getRepository(Gateway)
        .findOne({ where: { id: gatewayId }, lock: { mode: 'pessimistic_write' } });
      if (gateway && upstreamFingerprint(gateway) === failed)
        await em.getRepository(Gateway).update(gatewayId, {
          status,
          lastError: reason,
          ...KEEP_UPDATED_AT,
        });
    });
  }

  /** The upstream answered a ping: it was seen, though only a sync makes it healthy again. */
  async markSeen(gatewayId: string): Promise<void> {
    await this.dataSource
      .getRepository(Gateway)
      .update(gatewayId, { lastSeenAt: new Date(), ...KEEP_UPDATED_AT });
  }

  private logFailure(gatewayId: string, reason: string, error: unknown): void {
    if (error instanceof GatewayException) {
      const quiet =
        error.code === GatewayErrorCode.SyncInProgress ||
        error.code === GatewayErrorCode.SyncSuperseded ||
        error.code === GatewayErrorCode.NotFound ||
        error.code === GatewayErrorCode.Disabled;
      if (quiet) this.logger.debug(`Sync of ${gatewayId} (${reason}) skipped: ${error.message}`);
      else this.logger.warn(`Sync of ${gatewayId} (${reason}) failed: ${error.message}`);
      return;
    }
    this.logger.error(
      `Sync of ${gatewayId} (${reason}) failed`,
      error instanceof Error ? error.stack : String(error),
    );
  }
}

/**
 * Runs `work` for each id, SYNC_CONCURRENCY at a time, until every id is done or `stopped` says
 * to take no more.
 */
export async function inTurns(
  ids: Iterable<string>,
  work: (id: string) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined && !stopped(); id = queue.shift()) await work(id);
  };
  await Promise.all(Array.from({ length: SYNC_CONCURRENCY }, worker));
}
