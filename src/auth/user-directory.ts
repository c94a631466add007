import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { AuthSettings } from '../config/slices/auth.settings';
import { LastKnownCache } from '../common/last-known-cache';
import { EventBus, isResync } from '../events/event-bus';
import { Metrics } from '../observability/metrics';
import { TeamMember } from '../teams/team-member.entity';
import { User, type UserSource } from '../users/user.entity';
import { type Role } from '../common/roles';

/** What authorization needs to know of a user. */
export interface Identity {
  id: string;
  username: string;
  role: Role;
  teamIds: string[];
  disabled: boolean;
  source: UserSource;
}

const LIMIT = 10_000;
const UNKNOWN_EXTERNAL_TTL_MS = 10_000;

/**
 * Users' roles and teams by id, cached so that authorizing a request costs no database round
 * trip. Users, teams and memberships announce their changes (`identity.changed`), which drops
 * the entries concerned on every replica; AUTH_CACHE_TTL_SECONDS bounds how long one missed
 * announcement could matter. While the database is unavailable what was known keeps serving
 * (see LastKnownCache).
 */
@Injectable()
export class UserDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly cache: LastKnownCache<Identity | null>;
  private readonly external: LastKnownCache<string | null>;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    config: AuthSettings,
    metrics: Metrics,
  ) {
    const ttlMs = config.authCacheTtlSeconds * 1000;
    const logger = new Logger(UserDirectory.name);
    const onStale = () => metrics.staleReads.inc({ cache: 'identity' });
    this.cache = new LastKnownCache({
      ttlMs: () => ttlMs,
      limit: LIMIT,
      onStale,
      logger,
      describe: (id) => `user ${id}`,
    });
    this.external = new LastKnownCache({
      ttlMs: (id) => (id === null ? UNKNOWN_EXTERNAL_TTL_MS : ttlMs),
      limit: LIMIT,
      onStale,
      logger,
      describe: () => 'the account of an SSO user',
    });
  }

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event)) {
        this.cache.invalidateAll();
        this.external.invalidateAll();
      } else if (event.type === 'identity.changed') {
        for (const id of event.userIds) this.cache.delete(id);
        this.external.invalidateFlights();
      }
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The user, or null when there is none (any more). */
  get(userId: string, now = Date.now()): Promise<Identity | null> {
    return this.cache.get(userId, () => this.load(userId), now);
  }

  /** Reads the user afresh, bypassing the cache. */
  async load(userId: string): Promise<Identity | null> {
    if (!isUUID(userId)) return null;
    const user = await this.dataSource.getRepository(User).findOneBy({ id: userId });
    if (!user) return null;
    const memberships = await this.dataSource
      .getRepository(TeamMember)
      .find({ where: { userId }, order: { teamId: 'ASC' } });
    return {
      id: user.id,
      username: user.username,
      role: user.role,
      teamIds: memberships.map((membership) => membership.teamId),
      disabled: user.disabled,
      source: user.source,
    };
  }

  /**
   * The local account of a person of the identity provider, made at their first SSO sign-in;
   * cached, with a short memory of "none" so that a first sign-in shows up soon.
   */
  idOfExternal(issuer: string, subject: string, now = Date.now()): Promise<string | null> {
    return this.external.get(
      `${issuer}\0${subject}`,
      async () => {
        const user = await this.dataSource.getRepository(User).findOne({
          select: { id: true },
          where: { externalIssuer: issuer, externalSubject: subject },
        });
        return user?.id ?? null;
      },
      now,
    );
  }

  /** The id of the user with this username, read afresh. */
  async idOf(username: string): Promise<string | null> {
    const user = await this.dataSource
      .getRepository(User)
      .findOne({ select: { id: true }, where: { username } });
    return user?.id ?? null;
  }
}
