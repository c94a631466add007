import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { EventBus, isResync } from '../../events/event-bus';
import { scopeKey } from '../protocol/mcp-scope';
import { McpPromotion } from './mcp-promotion.entity';
import {
  mergePromotions,
  type PromotionHolder,
  type Promotions,
  samePromotions,
} from './promotions';
import { type PromotionOwner } from './promotion-owner';

/** Who holds promotions on the modern wire: the principal, in the scope it reaches. */
export type PrincipalOwner = Pick<
  Extract<PromotionOwner, { kind: 'principal' }>,
  'scope' | 'subject'
>;

/** Owners whose promotions this replica keeps in memory; the oldest go first. */
const CACHE_LIMIT = 10_000;
/** Rows no search has touched for this long are removed: their catalogue has likely moved on. */
const RETENTION_MS = 30 * 24 * 3600 * 1000;
const PURGE_EVERY_MS = 3600 * 1000;

/**
 * Tool-search promotions of modern clients, which have no session: stored per principal and scope
 * in PostgreSQL, so that any replica serves any request, and cached on each replica (owners with
 * none included), so that reading them costs no round trip once cached. A promotion is announced
 * on the bus, and every replica drops its copy.
 */
@Injectable()
export class ModernPromotions
  implements PromotionHolder<PrincipalOwner>, OnModuleInit, OnModuleDestroy
{
  private readonly logger = new Logger(ModernPromotions.name);
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
      if (event.type === 'mcp.promotions.changed') this.forget(key(event.scope, event.subject));
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
  async promotions(owner: PrincipalOwner, fresh = false): Promise<Promotions | null> {
    const id = key(scopeKey(owner.scope), owner.subject);
    if (!fresh && this.cache.has(id)) return this.cache.get(id)!;
    const epoch = this.epoch;
    const row = await this.dataSource.getRepository(McpPromotion).findOne({
      select: { catalogHash: true, names: true },
      where: { scope: scopeKey(owner.scope), subject: owner.subject },
    });
    const promotions = row ? { catalogHash: row.catalogHash, names: row.names } : null;
    if (epoch === this.epoch) this.remember(id, promotions);
    return promotions;
  }

  /**
   * Promotes `names` under `catalogHash` (see mergePromotions). The row is created or locked while
   * it is merged, so that searches of one owner on several replicas at once lose nothing.
   */
  async promote(
    owner: PrincipalOwner,
    catalogHash: string,
    names: readonly string[],
  ): Promise<{ promotions: Promotions; changed: boolean }> {
    const scope = scopeKey(owner.scope);
    const subject = owner.subject;
    const result = await this.dataSource.transaction(async (em) => {
      const first = mergePromotions(null, catalogHash, names);
      if (first.names.length > 0) {
        const inserted: unknown[] = await em.query(
          `INSERT INTO mcp_promotion (scope, subject, catalog_hash, names) VALUES ($1, $2, $3, $4)
           ON CONFLICT DO NOTHING RETURNING scope`,
          [scope, subject, first.catalogHash, JSON.stringify(first.names)],
        );
        if (inserted.length > 0) return { promotions: first, changed: true };
      }
      const rows = em.getRepository(McpPromotion);
      const row = await rows.findOne({
        where: { scope, subject },
        lock: { mode: 'pessimistic_write' },
      });
      const current = row ? { catalogHash: row.catalogHash, names: row.names } : null;
      if (first.names.length === 0) return { promotions: current ?? first, changed: false };
      const next = mergePromotions(current, catalogHash, names);
      if (samePromotions(current, next)) return { promotions: next, changed: false };
      await rows.update({ scope, subject }, { catalogHash: next.catalogHash, names: next.names });
      return { promotions: next, changed: true };
    });
    if (result.changed) {
      this.forget(key(scope, subject));
      await this.bus.publish({ type: 'mcp.promotions.changed', scope, subject });
    }
    return result;
  }

  private remember(id: string, promotions: Promotions | null): void {
    this.cache.delete(id);
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(id, promotions);
  }

  private forget(id: string): void {
    this.epoch++;
    this.cache.delete(id);
  }

  private async removeStale(): Promise<void> {
    try {
      await this.dataSource
        .getRepository(McpPromotion)
        .delete({ updatedAt: LessThan(new Date(Date.now() - RETENTION_MS)) });
    } catch (error) {
      this.logger.warn(`Could not remove stale promotions: ${String(error)}`);
    }
  }
}

function key(scope: string, subject: string): string {
  return `${scope}\n${subject}`;
}
