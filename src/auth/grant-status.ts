import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { AuthSettings } from '../config/slices/auth.settings';
import { LastKnownCache } from '../common/last-known-cache';
import { EventBus, isResync } from '../events/event-bus';
import { Metrics } from '../observability/metrics';
import { OAuthGrant } from '../oauth/oauth-grant.entity';

const LIMIT = 20_000;

/**
 * Whether OAuth grants are still in force, cached for the MCP request path. Revoking a grant
 * (RFC 7009, a reused refresh token, a deleted user) announces it on the event bus, which drops
 * the entry on every replica; AUTH_CACHE_TTL_SECONDS is only a safety net. While the database is
 * unavailable, what was known keeps serving (see LastKnownCache).
 */
@Injectable()
export class GrantStatus implements OnModuleInit, OnModuleDestroy {
  private readonly cache: LastKnownCache<boolean>;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    config: AuthSettings,
    metrics: Metrics,
  ) {
    const ttlMs = config.authCacheTtlSeconds * 1000;
    this.cache = new LastKnownCache({
      ttlMs: () => ttlMs,
      limit: LIMIT,
      onStale: () => metrics.staleReads.inc({ cache: 'oauth-grant' }),
      logger: new Logger(GrantStatus.name),
      describe: (id) => `OAuth grant ${id}`,
    });
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event)) this.cache.invalidateAll();
      else if (event.type === 'identity.changed') {
        this.cache.invalidateFlights();
        for (const id of event.grantIds) this.cache.delete(id);
      }
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Drops grants here at once, before the bus brings the news back to this replica. */
  revoked(grantIds: readonly string[]): void {
    for (const id of grantIds) this.cache.delete(id);
  }

  async active(grantId: string, now = Date.now()): Promise<boolean> {
    if (!isUUID(grantId)) return false;
    return this.cache.get(
      grantId,
      async () => {
        const grant = await this.dataSource
          .getRepository(OAuthGrant)
          .findOne({ select: { id: true, revokedAt: true }, where: { id: grantId } });
        return grant !== null && grant.revokedAt === null;
      },
      now,
    );
  }
}
