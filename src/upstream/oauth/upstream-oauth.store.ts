import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { AppConfig } from '../../config/app-config';
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

/** The reads and writes one OAuth exchange makes. */
export interface OAuthRecords {
  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null>;
  /** Inserts or replaces the account's tokens. */
  saveToken(record: OAuthTokenRecord): Promise<void>;
  /** A failed refresh; `drop`: the tokens are worthless and are forgotten. */
  tokenFailed(gatewayId: string, owner: string, reason: string, drop: boolean): Promise<void>;
  client(gatewayId: string): Promise<OAuthClientRecord | null>;
  saveClient(record: OAuthClientRecord): Promise<void>;
}

/**
 * Where UpstreamOAuth keeps tokens and registered clients: Portico's database, or memory for a
 * one-off command (`portico upstream`).
 */
export abstract class UpstreamOAuthStore implements OAuthRecords {
  /**
   * Runs `work` while no other replica runs work for `key`, against records that see what the
   * last one committed: a refresh token is spent once.
   */
  abstract exclusive<T>(key: string, work: (records: OAuthRecords) => Promise<T>): Promise<T>;
  abstract token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null>;
  abstract saveToken(record: OAuthTokenRecord): Promise<void>;
  abstract tokenFailed(
    gatewayId: string,
    owner: string,
    reason: string,
    drop: boolean,
  ): Promise<void>;
  abstract client(gatewayId: string): Promise<OAuthClientRecord | null>;
  abstract saveClient(record: OAuthClientRecord): Promise<void>;
  /** Forgets the account's tokens; whether there were any. */
  abstract deleteToken(gatewayId: string, owner: string): Promise<boolean>;
  /** The accounts connected to these gateways, oldest first. */
  abstract tokens(gatewayIds: string[]): Promise<OAuthTokenRecord[]>;
}

/** The records of one entity manager: the data source's, or a transaction's. */
class EntityRecords implements OAuthRecords {
  constructor(private readonly em: EntityManager) {}

  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null> {
    return this.em.getRepository(UpstreamOAuthToken).findOneBy({ gatewayId, owner });
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
    if (!result.affected)
      await repository.insert({
        gatewayId,
        owner,
        userId: userIdOf(owner),
        tokens: null,
        refreshError: reason,
      });
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
  private readonly records: EntityRecords;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
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

  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null> {
    return this.records.token(gatewayId, owner);
  }

  saveToken(record: OAuthTokenRecord): Promise<void> {
    return this.records.saveToken(record);
  }

  tokenFailed(gatewayId: string, owner: string, reason: string, drop: boolean): Promise<void> {
    return this.records.tokenFailed(gatewayId, owner, reason, drop);
  }

  client(gatewayId: string): Promise<OAuthClientRecord | null> {
    return this.records.client(gatewayId);
  }

  saveClient(record: OAuthClientRecord): Promise<void> {
    return this.records.saveClient(record);
  }

  async deleteToken(gatewayId: string, owner: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(UpstreamOAuthToken)
      .delete({ gatewayId, owner });
    return (result.affected ?? 0) > 0;
  }

  tokens(gatewayIds: string[]): Promise<OAuthTokenRecord[]> {
    return this.dataSource
      .getRepository(UpstreamOAuthToken)
      .find({ where: { gatewayId: In(gatewayIds) }, order: { createdAt: 'ASC' } });
  }
}

/** For a one-off process: what it registers and the tokens it obtains live as long as it does. */
export class MemoryOAuthStore extends UpstreamOAuthStore {
  private readonly tokenRecords = new Map<string, OAuthTokenRecord>();
  private readonly clientRecords = new Map<string, OAuthClientRecord>();

  exclusive<T>(_key: string, work: (records: OAuthRecords) => Promise<T>): Promise<T> {
    return work(this);
  }

  token(gatewayId: string, owner: string): Promise<OAuthTokenRecord | null> {
    const record = this.tokenRecords.get(keyOf(gatewayId, owner));
    return Promise.resolve(record ? { ...record } : null);
  }

  saveToken(record: OAuthTokenRecord): Promise<void> {
    this.tokenRecords.set(keyOf(record.gatewayId, record.owner), { ...record });
    return Promise.resolve();
  }

  tokenFailed(gatewayId: string, owner: string, reason: string, drop: boolean): Promise<void> {
    const key = keyOf(gatewayId, owner);
    const record = this.tokenRecords.get(key) ?? {
      gatewayId,
      owner,
      userId: userIdOf(owner),
      tokens: null,
      expiresAt: null,
      refreshedAt: null,
      refreshError: null,
    };
    this.tokenRecords.set(key, {
      ...record,
      refreshError: reason,
      ...(drop ? { tokens: null, expiresAt: null } : {}),
    });
    return Promise.resolve();
  }

  client(gatewayId: string): Promise<OAuthClientRecord | null> {
    const record = this.clientRecords.get(gatewayId);
    return Promise.resolve(record ? { ...record } : null);
  }

  saveClient(record: OAuthClientRecord): Promise<void> {
    this.clientRecords.set(record.gatewayId, { ...record });
    return Promise.resolve();
  }

  deleteToken(gatewayId: string, owner: string): Promise<boolean> {
    return Promise.resolve(this.tokenRecords.delete(keyOf(gatewayId, owner)));
  }

  tokens(gatewayIds: string[]): Promise<OAuthTokenRecord[]> {
    return Promise.resolve(
      [...this.tokenRecords.values()].filter((record) => gatewayIds.includes(record.gatewayId)),
    );
  }
}

function userIdOf(owner: string): string | null {
  return owner === SHARED_OWNER ? null : owner;
}

function keyOf(gatewayId: string, owner: string): string {
  return `${gatewayId}:${owner}`;
}
