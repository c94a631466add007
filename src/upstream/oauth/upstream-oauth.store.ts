import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { DatabaseSettings } from '../../config/slices/database.settings';
import { UpstreamOAuthClient } from './upstream-oauth-client.entity';
import { SHARED_OWNER, UpstreamOAuthToken } from './upstream-oauth-token.entity';

/** One account's tokens for one upstream, sealed, and how their last refresh went. */
export type OAuthTokenRecord = Pick<
  UpstreamOAuthToken,
  'gatewayId' | 'owner' | 'userId' | 'tokens' | 'expiresAt' | 'refreshedAt' | 'refreshError'
>;

/** The client registered at an upstream's authorization server (sealed), and what was discovered. */
export type OAuthClientRecord = Pick<
  UpstreamOAuthClient,
  'gatewayId' | 'upstreamUrl' | 'clientInformation' | 'discovery'
>;

/** The reads and writes of OAuth records. */
export interface OAuthRecords {
  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null>;
  /** The accounts connected to these gateways, oldest first. */
  tokens(gatewayIds: string[]): Promise<OAuthTokenRecord[]>;
  /** Inserts or replaces the account's tokens. */
  saveToken(record: OAuthTokenRecord): Promise<void>;
  /** A failed refresh; `drop`: the tokens are worthless and are forgotten. */
  tokenFailed(gatewayId: string, owner: string, reason: string, drop: boolean): Promise<void>;
  /** Forgets the account's tokens; whether there were any. */
  deleteToken(gatewayId: string, owner: string): Promise<boolean>;
  client(gatewayId: string): Promise<OAuthClientRecord | null>;
  saveClient(record: OAuthClientRecord): Promise<void>;
}

/**
 * Where UpstreamOAuth keeps tokens and registered clients: Portico's database, or memory for a
 * one-off command (`portico upstream`).
 */
export abstract class UpstreamOAuthStore {
  /** The records outside exclusive work. */
  abstract readonly records: OAuthRecords;
  /**
   * Runs `work` while no other replica runs work for `key`, against records that see what the
   * last one committed: a refresh token is spent once.
   */
  abstract exclusive<T>(key: string, work: (records: OAuthRecords) => Promise<T>): Promise<T>;
}

/** The records of one entity manager: the data source's, or a transaction's. */
class EntityRecords implements OAuthRecords {
  constructor(private readonly em: EntityManager) {}

  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null> {
    return this.em.getRepository(UpstreamOAuthToken).findOneBy({ gatewayId, owner });
  }

  tokens(gatewayIds: string[]): Promise<OAuthTokenRecord[]> {
    return this.em
      .getRepository(UpstreamOAuthToken)
      .find({ where: { gatewayId: In(gatewayIds) }, order: { createdAt: 'ASC' } });
  }

  async saveToken(record: OAuthTokenRecord): Promise<void> {
    await this.em.getRepository(UpstreamOAuthToken).upsert(record, ['gatewayId', 'owner']);
  }

  async tokenFailed(gatewayId: string, owner: string, reason: string, drop: boolean) {
    const repository = this.em.getRepository(UpstreamOAuthToken);
    const result = await repository.update(
      { gatewayId, owner },
      { refreshError: reason, ...(drop ? { tokens: null, expiresAt: null } : {}) },
    );
    // Client credentials have no row before their first token: the failure still shows.
    if (!result.affected) await repository.insert(failedRecord(gatewayId, owner, reason));
  }

  async deleteToken(gatewayId: string, owner: string): Promise<boolean> {
    const result = await this.em.getRepository(UpstreamOAuthToken).delete({ gatewayId, owner });
    return (result.affected ?? 0) > 0;
  }

  client(gatewayId: string): Promise<OAuthClientRecord | null> {
    return this.em.getRepository(UpstreamOAuthClient).findOneBy({ gatewayId });
  }

  async saveClient(record: OAuthClientRecord): Promise<void> {
    const repository = this.em.getRepository(UpstreamOAuthClient);
    await repository.save(repository.create(record));
  }
}

/**
 * Portico's database. On PostgreSQL, exclusive work runs in a transaction under an advisory lock
 * of its key, and reads the rows again under it.
 */
@Injectable()
export class DatabaseOAuthStore extends UpstreamOAuthStore {
  readonly records: OAuthRecords;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: DatabaseSettings,
  ) {
    super();
    this.records = new EntityRecords(dataSource.manager);
  }

  exclusive<T>(key: string, work: (records: OAuthRecords) => Promise<T>): Promise<T> {
    if (this.config.database.mode !== 'postgres') return work(this.records);
    return this.dataSource.transaction(async (em) => {
      await em.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `upstream-oauth:${key}`,
      ]);
      return work(new EntityRecords(em));
    });
  }
}

/** For a one-off process: what it registers and the tokens it obtains live as long as it does. */
export class MemoryOAuthStore extends UpstreamOAuthStore implements OAuthRecords {
  readonly records: OAuthRecords = this;
  private readonly tokenRecords = new Map<string, OAuthTokenRecord>();
  private readonly clientRecords = new Map<string, OAuthClientRecord>();

  exclusive<T>(_key: string, work: (records: OAuthRecords) => Promise<T>): Promise<T> {
    return work(this);
  }

  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null> {
    const record = this.tokenRecords.get(tokenKey(gatewayId, owner));
    return Promise.resolve(record ? { ...record } : null);
  }

  tokens(gatewayIds: string[]): Promise<OAuthTokenRecord[]> {
    return Promise.resolve(
      [...this.tokenRecords.values()].filter((record) => gatewayIds.includes(record.gatewayId)),
    );
  }

  saveToken(record: OAuthTokenRecord): Promise<void> {
    this.tokenRecords.set(tokenKey(record.gatewayId, record.owner), { ...record });
    return Promise.resolve();
  }

  tokenFailed(gatewayId: string, owner: string, reason: string, drop: boolean): Promise<void> {
    const key = tokenKey(gatewayId, owner);
    const record = this.tokenRecords.get(key) ?? failedRecord(gatewayId, owner, reason);
    this.tokenRecords.set(key, {
      ...record,
      refreshError: reason,
      ...(drop ? { tokens: null, expiresAt: null } : {}),
    });
    return Promise.resolve();
  }

  deleteToken(gatewayId: string, owner: string): Promise<boolean> {
    return Promise.resolve(this.tokenRecords.delete(tokenKey(gatewayId, owner)));
  }

  client(gatewayId: string): Promise<OAuthClientRecord | null> {
    const record = this.clientRecords.get(gatewayId);
    return Promise.resolve(record ? { ...record } : null);
  }

  saveClient(record: OAuthClientRecord): Promise<void> {
    this.clientRecords.set(record.gatewayId, { ...record });
    return Promise.resolve();
  }
}

/** The user whose tokens these are; none for the gateway's own account. */
export function userIdOf(owner: string): string | null {
  return owner === SHARED_OWNER ? null : owner;
}

/** The record of an account that holds no tokens, and whose last refresh failed. */
function failedRecord(gatewayId: string, owner: string, reason: string): OAuthTokenRecord {
  return {
    gatewayId,
    owner,
    userId: userIdOf(owner),
    tokens: null,
    expiresAt: null,
    refreshedAt: null,
    refreshError: reason,
  };
}

/** The key of one account's tokens for one gateway. */
export function tokenKey(gatewayId: string, owner: string): string {
  return `${gatewayId}:${owner}`;
}
