import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthSettings } from '../config/slices/auth.settings';
import { LastKnownCache } from '../common/last-known-cache';
import { EventBus, isResync } from '../events/event-bus';
import { Metrics } from '../observability/metrics';
import { ApiToken } from '../tokens/api-token.entity';
import { hashTokenValue } from './api-token-value';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type Principal } from './principal';
import { lowerRole, type Role } from '../common/roles';
import { TokenUsage } from './token-usage';
import { UserDirectory } from './user-directory';

interface TokenRecord {
  id: string;
  name: string;
  ownerId: string;
  role: Role | null;
  serverIds: string[] | null;
  expiresAt: number | null;
}

/**
 * How long an unknown token stays unknown here. A known one is trusted for AUTH_CACHE_TTL_SECONDS,
 * a safety net only: a revocation reaches every replica's cache through the event bus at once.
 */
const UNKNOWN_TTL_MS = 5_000;
const LIMIT = 20_000;

/**
 * Turns a managed API token into its principal. Lookups are cached by the token's hash, so the
 * tools/call path costs no database round trip; revoking a token announces it on the event bus
 * and every replica drops it from this cache within the bus's delivery time. While the database
 * is unavailable, tokens known here keep working (see LastKnownCache).
 */
@Injectable()
export class ApiTokenVerifier implements OnModuleInit, OnModuleDestroy {
  private readonly byHash: LastKnownCache<TokenRecord | null>;
  private readonly hashById = new Map<string, string>();
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    private readonly users: UserDirectory,
    private readonly usage: TokenUsage,
    config: AuthSettings,
    metrics: Metrics,
  ) {
    const ttlMs = config.authCacheTtlSeconds * 1000;
    this.byHash = new LastKnownCache({
      ttlMs: (record) => (record ? ttlMs : UNKNOWN_TTL_MS),
      limit: LIMIT,
      onStale: () => metrics.staleReads.inc({ cache: 'api-token' }),
      logger: new Logger(ApiTokenVerifier.name),
      describe: () => 'an API token',
    });
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event)) this.byHash.invalidateAll();
      else if (event.type === 'identity.changed') {
        this.byHash.invalidateFlights();
        for (const id of event.tokenIds) this.forget(id);
      }
    });
  }

  /** Drops revoked tokens here at once, before the bus brings the news back to this replica. */
  revoked(tokenIds: readonly string[]): void {
    this.byHash.invalidateFlights();
    for (const id of tokenIds) this.forget(id);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  async verify(value: string, now = Date.now()): Promise<Principal> {
    const record = await this.record(hashTokenValue(value), now);
    if (!record) throw unauthenticated('The API token is unknown or was revoked.');
    if (record.expiresAt !== null && record.expiresAt <= now)
      throw unauthenticated('The API token has expired.');
    const owner = await this.users.get(record.ownerId);
    if (!owner || owner.disabled)
      throw unauthenticated('The owner of this API token may no longer sign in.');
    this.usage.touch(record.id);
    return {
      subject: `token:${record.id}`,
      // Its owner's username: a token's name is the owner's to choose, and would let them pass as
      // anyone to a policy that reads `principal.name` and in the audit trail.
      name: owner.username,
      userId: owner.id,
      role: record.role === null ? owner.role : lowerRole(record.role, owner.role),
      teamIds: owner.teamIds,
      serverIds: record.serverIds,
      audience: null,
      tokenId: record.id,
      source: 'api-token',
      expiresAt: record.expiresAt ?? undefined,
    };
  }

  private record(hash: string, now: number): Promise<TokenRecord | null> {
    return this.byHash.get(
      hash,
      async () => {
        const row = await this.dataSource.getRepository(ApiToken).findOneBy({ tokenHash: hash });
        if (!row) return null;
        if (this.hashById.size >= LIMIT) {
          // Both go together, so that a revocation always finds the entry it must drop.
          this.hashById.clear();
          this.byHash.clear();
        }
        this.hashById.set(row.id, hash);
        return {
          id: row.id,
          name: row.name,
          ownerId: row.ownerId,
          role: row.role,
          serverIds: row.serverIds,
          expiresAt: row.expiresAt?.getTime() ?? null,
        };
      },
      now,
    );
  }

  private forget(tokenId: string): void {
    const hash = this.hashById.get(tokenId);
    if (hash === undefined) return;
    this.byHash.delete(hash);
    this.hashById.delete(tokenId);
  }
}

function unauthenticated(message: string): AuthException {
  return new AuthException(AuthErrorCode.Unauthenticated, message);
}
