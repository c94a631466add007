import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus, isResync } from '../events/event-bus';
import { ApiToken } from '../tokens/api-token.entity';
import { hashTokenValue } from './api-token-value';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type Principal } from './principal';
import { lowerRole, type Role } from './roles';
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

/** Safety nets only: a revocation reaches every replica's cache through the event bus at once. */
const TTL_MS = 60_000;
const UNKNOWN_TTL_MS = 5_000;
const LIMIT = 20_000;

/**
 * Turns a managed API token into its principal. Lookups are cached by the token's hash, so the
 * tools/call path costs no database round trip; revoking a token announces it on the event bus
 * and every replica drops it from this cache within the bus's delivery time.
 */
@Injectable()
export class ApiTokenVerifier implements OnModuleInit, OnModuleDestroy {
  private readonly byHash = new Map<string, { record: TokenRecord | null; at: number }>();
  private readonly hashById = new Map<string, string>();
  /**
   * Counts invalidations: a lookup that was under way when one arrived may have read the row
   * before the revocation, so its result is not cached.
   */
  private generation = 0;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    private readonly users: UserDirectory,
    private readonly usage: TokenUsage,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event) || event.type === 'identity.changed') this.generation += 1;
      if (isResync(event)) {
        this.byHash.clear();
        this.hashById.clear();
      } else if (event.type === 'identity.changed') {
        for (const id of event.tokenIds) this.forget(id);
      }
    });
  }

  /** Drops revoked tokens here at once, before the bus brings the news back to this replica. */
  revoked(tokenIds: readonly string[]): void {
    this.generation += 1;
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
      name: record.name,
      userId: owner.id,
      role: record.role === null ? owner.role : lowerRole(record.role, owner.role),
      teamIds: owner.teamIds,
      serverIds: record.serverIds,
      audience: null,
      tokenId: record.id,
      source: 'api-token',
    };
  }

  private async record(hash: string, now: number): Promise<TokenRecord | null> {
    const cached = this.byHash.get(hash);
    if (cached && now - cached.at < (cached.record ? TTL_MS : UNKNOWN_TTL_MS)) return cached.record;
    const generation = this.generation;
    const row = await this.dataSource.getRepository(ApiToken).findOneBy({ tokenHash: hash });
    const record: TokenRecord | null = row && {
      id: row.id,
      name: row.name,
      ownerId: row.ownerId,
      role: row.role,
      serverIds: row.serverIds,
      expiresAt: row.expiresAt?.getTime() ?? null,
    };
    if (generation !== this.generation) return record;
    if (this.byHash.size >= LIMIT) {
      this.byHash.clear();
      this.hashById.clear();
    }
    this.byHash.set(hash, { record, at: now });
    if (record) this.hashById.set(record.id, hash);
    return record;
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
