import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource, IsNull, LessThan, QueryFailedError } from 'typeorm';
import { EventBus, isResync } from '../../events/event-bus';
import { McpPromotion } from '../state/mcp-promotion.entity';
import { ownerKey } from './promotion-owner';
import { type RequestOwner } from '../protocol/mcp-request';
import { mergePromotions, type Promotions, samePromotions } from './promotions';

/** Owners whose promotions this replica keeps in memory; the oldest go first. */
const CACHE_LIMIT = 10_000;
/**
 * A principal's row no search has touched for this long is removed: its catalogue has likely
 * moved on. A session's goes with the session.
 */
const RETENTION_MS = 30 * 24 * 3600 * 1000;
const PURGE_EVERY_MS = 3600 * 1000;

/**
 * Tool-search promotions of every conversation's owner, a 2025 session or a modern client's
 * principal in its scope, in one table keyed by ownerKey: any replica serves any request. Each
 * replica caches them (owners with none included), so that reading them costs no round trip once
 * cached; a change is announced on the bus, and every replica drops its copy.
 */
@Injectable()
export class PromotionStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PromotionStore.name);
  private readonly cache = new Map<string, Promotions | null>();
  /** Moves on every invalidation: a read that started before one must not be cached. */
  private epoch = 0;
  private unsubscribe?: () => void;
  private purge?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'mcp.promotions.changed') this.forget(event.owner);
      else if (event.type === 'mcp.session.changed' && event.ended)
        this.forget(ownerKey({ kind: 'session', sessionId: event.sessionId }));
      else if (isResync(event)) {
        this.epoch++;
        this.cache.clear();
      }
    });
    const every = PURGE_EVERY_MS + Math.floor(Math.random() * 60_000);
    this.purge = setInterval(() => void this.removeStale(), every).unref();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearInterval(this.purge);
  }

  /**
   * The owner's promotions. Under one catalogue hash they only grow, so a cached copy can only be
   * behind: trust it when it lists a name, and ask with `fresh` before saying a name is missing.
   */
  async promotions(owner: RequestOwner, fresh = false): Promise<Promotions | null> {
    const key = ownerKey(owner);
    if (!fresh && this.cache.has(key)) return this.cache.get(key)!;
    const epoch = this.epoch;
    const row = await this.dataSource.getRepository(McpPromotion).findOne({
      select: { catalogHash: true, names: true },
      where: { owner: key },
    });
    const promotions = row ? { catalogHash: row.catalogHash, names: row.names } : null;
    if (epoch === this.epoch) this.remember(key, promotions);
    return promotions;
  }

  /**
   * Promotes `names` under `catalogHash` (see mergePromotions). The row is created or locked while
   * it is merged, so that searches of one owner on several replicas at once lose nothing. Returns
   * the promotions now stored and whether they changed; null when the owner is a session that is
   * gone.
   */
  async promote(
    owner: RequestOwner,
    catalogHash: string,
    names: readonly string[],
  ): Promise<{ promotions: Promotions; changed: boolean } | null> {
    const key = ownerKey(owner);
    const sessionId = owner.kind === 'session' ? owner.sessionId : null;
    let result: { promotions: Promotions; changed: boolean } | null;
    try {
      result = await this.dataSource.transaction(async (em) => {
        const insert = (promotions: Promotions, onConflict: string): Promise<unknown[]> =>
          em.query(
            `INSERT INTO mcp_promotion (owner, session_id, catalog_hash, names)
             VALUES ($1, $2, $3, $4) ${onConflict} RETURNING owner`,
            [key, sessionId, promotions.catalogHash, JSON.stringify(promotions.names)],
          );
        const first = mergePromotions(null, catalogHash, names);
        if (first.names.length > 0 && (await insert(first, 'ON CONFLICT DO NOTHING')).length > 0)
          return { promotions: first, changed: true };
        const rows = em.getRepository(McpPromotion);
        const row = await rows.findOne({
          select: { owner: true, catalogHash: true, names: true },
          where: { owner: key },
          lock: { mode: 'pessimistic_write' },
        });
        const current = row ? { catalogHash: row.catalogHash, names: row.names } : null;
        if (first.names.length === 0) return { promotions: current ?? first, changed: false };
        if (!current) {
          // Gone since the insert met it (its session ended, or the purge took it): written
          // anew, which the foreign key refuses for a session that ended.
          await insert(first, '');
          return { promotions: first, changed: true };
        }
        const next = mergePromotions(current, catalogHash, names);
        if (samePromotions(current, next)) return { promotions: next, changed: false };
        await rows.update({ owner: key }, { catalogHash: next.catalogHash, names: next.names });
        return { promotions: next, changed: true };
      });
    } catch (error) {
      if (endedSession(error)) return null;
      throw error;
    }
    if (result?.changed) {
      this.forget(key);
      await this.bus.publish({ type: 'mcp.promotions.changed', owner: key });
    }
    return result;
  }

  private remember(key: string, promotions: Promotions | null): void {
    this.cache.delete(key);
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, promotions);
  }

  private forget(key: string): void {
    this.epoch++;
    this.cache.delete(key);
  }

  /** Removes principals' rows untouched for RETENTION_MS; runs every hour or so. */
  async removeStale(): Promise<void> {
    try {
      await this.dataSource.getRepository(McpPromotion).delete({
        sessionId: IsNull(),
        updatedAt: LessThan(new Date(Date.now() - RETENTION_MS)),
      });
    } catch (error) {
      this.logger.warn(`Could not remove stale promotions: ${String(error)}`);
    }
  }
}

/** The statement referred to a session that is not there (any more). */
function endedSession(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const { code, constraint } = error.driverError as { code?: string; constraint?: string };
  return code === '23503' && constraint === 'mcp_promotion_session_fk';
}
