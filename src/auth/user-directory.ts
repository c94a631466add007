import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { EventBus, isResync } from '../events/event-bus';
import { TeamMember } from '../teams/team-member.entity';
import { User, type UserSource } from '../users/user.entity';
import { type Role } from './roles';

/** What authorization needs to know of a user. */
export interface Identity {
  id: string;
  username: string;
  role: Role;
  teamIds: string[];
  disabled: boolean;
  source: UserSource;
}

/**
 * A short safety net: every change is announced on the event bus and drops the entry at once on
 * every replica; this bounds how long one missed announcement could matter.
 */
const TTL_MS = 60_000;
const LIMIT = 10_000;
const UNKNOWN_EXTERNAL_TTL_MS = 10_000;

/**
 * Users' roles and teams by id, cached so that authorizing a request costs no database round
 * trip. Users, teams and memberships announce their changes (`identity.changed`), which drops
 * the entries concerned on every replica.
 */
@Injectable()
export class UserDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, { identity: Identity | null; at: number }>();
  private readonly external = new Map<string, { id: string | null; at: number }>();
  /** Counts invalidations; a load under way when one arrives is not cached (it may be stale). */
  private generation = 0;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (isResync(event) || event.type === 'identity.changed') this.generation += 1;
      if (isResync(event)) {
        this.cache.clear();
        this.external.clear();
      } else if (event.type === 'identity.changed')
        for (const id of event.userIds) this.cache.delete(id);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The user, or null when there is none (any more). */
  async get(userId: string, now = Date.now()): Promise<Identity | null> {
    const cached = this.cache.get(userId);
    if (cached && now - cached.at < TTL_MS) return cached.identity;
    const generation = this.generation;
    const identity = await this.load(userId);
    if (generation !== this.generation) return identity;
    if (this.cache.size >= LIMIT) this.cache.clear();
    this.cache.set(userId, { identity, at: now });
    return identity;
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
  async idOfExternal(issuer: string, subject: string, now = Date.now()): Promise<string | null> {
    const key = `${issuer}\0${subject}`;
    const cached = this.external.get(key);
    if (cached && now - cached.at < (cached.id ? TTL_MS : UNKNOWN_EXTERNAL_TTL_MS))
      return cached.id;
    const user = await this.dataSource.getRepository(User).findOne({
      select: { id: true },
      where: { externalIssuer: issuer, externalSubject: subject },
    });
    if (this.external.size >= LIMIT) this.external.clear();
    this.external.set(key, { id: user?.id ?? null, at: now });
    return user?.id ?? null;
  }

  /** The id of the user with this username, read afresh. */
  async idOf(username: string): Promise<string | null> {
    const user = await this.dataSource
      .getRepository(User)
      .findOne({ select: { id: true }, where: { username } });
    return user?.id ?? null;
  }
}
