import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { EventBus, isResync } from '../events/event-bus';
import { OAuthGrant } from '../oauth/oauth-grant.entity';

const TTL_MS = 60_000;
const LIMIT = 20_000;

/**
 * Whether OAuth grants are still in force, cached for the MCP request path. Revoking a grant
 * (RFC 7009, a reused refresh token, a deleted user) announces it on the event bus, which drops
 * the entry on every replica; the short TTL is only a safety net.
 */
@Injectable()
export class GrantStatus implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, { active: boolean; at: number }>();
  private generation = 0;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event) || event.type === 'identity.changed') this.generation += 1;
      if (isResync(event)) this.cache.clear();
      else if (event.type === 'identity.changed')
        for (const id of event.grantIds) this.cache.delete(id);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Drops grants here at once, before the bus brings the news back to this replica. */
  revoked(grantIds: readonly string[]): void {
    this.generation += 1;
    for (const id of grantIds) this.cache.delete(id);
  }

  async active(grantId: string, now = Date.now()): Promise<boolean> {
    const cached = this.cache.get(grantId);
    if (cached && now - cached.at < TTL_MS) return cached.active;
    if (!isUUID(grantId)) return false;
    const generation = this.generation;
    const grant = await this.dataSource
      .getRepository(OAuthGrant)
      .findOne({ select: { id: true, revokedAt: true }, where: { id: grantId } });
    const active = grant !== null && grant.revokedAt === null;
    if (generation === this.generation) {
      if (this.cache.size >= LIMIT) this.cache.clear();
      this.cache.set(grantId, { active, at: now });
    }
    return active;
  }
}
