import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { type Pool } from 'pg';
import { DataSource } from 'typeorm';
import { type Principal } from '../auth/principal';
import { EventSettings } from '../config/slices/events.settings';
import { redisConnection } from '../events/redis-connection';
import { RateLimitMetrics } from './rate-limit-metrics';
import { type RateLimitKey } from './rate-limit.entity';
import { RateLimitErrorCode, RateLimitException } from './rate-limit.exception';
import { errorMessage } from '../common/error-message';

/** One limit as the call path reads it. */
export interface LimitRule {
  id: string;
  per: RateLimitKey;
  serverId: string | null;
  toolId: string | null;
  points: number;
  windowSeconds: number;
}

/**
 * A limit with the row its tool has now: a limit names its tool by gateway and upstream name, which
 * outlive the row a sync deletes when the upstream stops listing the tool (`t.id` is null then).
 */
export const LIMITS_WITH_TOOLS = `rate_limit l
  LEFT JOIN tool t ON t.gateway_id = l.gateway_id AND t.original_name = l.tool_name`;

/**
 * The limits that hold on a virtual server's endpoint, or (null) on `/mcp` and REST invoke: the
 * global ones. A limit on a tool that is away counts nothing until the tool is back, never every
 * tool.
 */
export function limitRules(dataSource: DataSource, serverId: string | null): Promise<LimitRule[]> {
  return dataSource.query(
    `SELECT l.id, l.per, l.server_id AS "serverId", t.id AS "toolId", l.points,
            l.window_seconds AS "windowSeconds"
     FROM ${LIMITS_WITH_TOOLS}
     WHERE (l.server_id IS NULL${serverId === null ? '' : ' OR l.server_id = $1'})
       AND (l.tool_name IS NULL OR t.id IS NOT NULL)
     ORDER BY l.id`,
    serverId === null ? [] : [serverId],
  );
}

/** The bucket a principal's calls count in: its token (or session subject), or its person. */
export function bucketOf(per: RateLimitKey, principal: Principal): string {
  return per === 'user'
    ? `user:${principal.userId ?? principal.subject}`
    : `token:${principal.tokenId ?? principal.subject}`;
}

/** How often the counters of ended windows are deleted from PostgreSQL (Redis expires its own). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/**
 * Once the counters failed, calls skip them for this long, so that an outage costs one call per
 * interval a timeout, not every call (nor a growing wait while a client reconnects).
 */
const STORE_RETRY_MS = 2000;

/**
 * Counts tool calls against limits with `rate-limiter-flexible`, in Redis when REDIS_URL is set
 * and else in PostgreSQL (the `rate_limit_counter` table), so every replica counts in one place.
 * A limit's counters are keyed by its id, window and points: editing a limit starts it afresh.
 *
 * When the counters cannot be reached (an error, or no answer within RATE_LIMIT_TIMEOUT_MS), each
 * replica counts on its own, in memory, allowing the limit's points divided by
 * RATE_LIMIT_FALLBACK_REPLICAS; with RATE_LIMIT_FAIL_CLOSED the call is refused instead. The shared
 * counters are tried again every two seconds, and pick up where they were.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly fallbacks = new Map<string, RateLimiterMemory>();
  private redis: Redis | null = null;
  private pruneTimer?: NodeJS.Timeout;
  /** Until when calls skip the shared counters, which just failed; 0 while they work. */
  private storeDownUntil = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: EventSettings,
    private readonly metrics: RateLimitMetrics,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.redisUrl) {
      this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
      return;
    }
    this.redis = redisConnection(
      this.config.redisUrl,
      'rate limits',
      this.config.eventBus,
      this.logger,
    );
    // Without Redis at start calls are counted per replica until it answers.
    await this.redis.connect().catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.pruneTimer);
    this.limiters.clear();
    this.fallbacks.clear();
    this.redis?.disconnect();
  }

  /**
   * Counts one call of `toolId` by `principal` against every limit that applies, and throws
   * RateLimitException (`Exceeded`, with `retryAfterSeconds`) past any of them. A call of no
   * stored tool (null: Portico's own `tool_search`) counts against the limits of all tools only.
   * Without an applicable limit no store is touched.
   */
  async consume(
    limits: readonly LimitRule[],
    principal: Principal,
    toolId: string | null,
  ): Promise<void> {
    let retryAfterMs = 0;
    for (const limit of limits) {
      if (limit.toolId !== null && limit.toolId !== toolId) continue;
      retryAfterMs = Math.max(
        retryAfterMs,
        await this.count(limit, bucketOf(limit.per, principal)),
      );
    }
    if (retryAfterMs > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throw new RateLimitException(
        RateLimitErrorCode.Exceeded,
        `Rate limit exceeded; retry after ${retryAfterSeconds} s.`,
        { retryAfterSeconds, retryAt: new Date(Date.now() + retryAfterMs).toISOString() },
      );
    }
  }

  /** Counts one call in the bucket; how long until the limit allows another if it is spent, else 0. */
  private async count(limit: LimitRule, bucket: string): Promise<number> {
    if (Date.now() >= this.storeDownUntil) {
      try {
        await this.withinTimeout(this.limiter(limit).consume(bucket));
        if (this.storeDownUntil > 0)
          this.logger.log('Rate limits are counted across replicas again');
        this.storeDownUntil = 0;
        return 0;
      } catch (error) {
        if (error instanceof RateLimiterRes) return error.msBeforeNext;
        if (this.storeDownUntil === 0)
          this.logger.warn(
            `Rate limit counters cannot be reached (${errorMessage(error)}); ${
              this.config.rateLimitStore.failClosed
                ? 'calls under a limit are refused'
                : 'each replica counts on its own'
            } until they answer`,
          );
        this.storeDownUntil = Date.now() + STORE_RETRY_MS;
      }
    }
    return this.countHere(limit, bucket);
  }

  /** The fallback while the shared counters are away: this replica's own, or none at all. */
  private async countHere(limit: LimitRule, bucket: string): Promise<number> {
    if (this.config.rateLimitStore.failClosed) {
      this.metrics.fallbacks.inc({ outcome: 'refused' });
      throw new RateLimitException(
        RateLimitErrorCode.Unavailable,
        'Rate limits cannot be checked right now; the call was not made.',
        { retryAfterSeconds: Math.ceil(STORE_RETRY_MS / 1000) },
      );
    }
    this.metrics.fallbacks.inc({ outcome: 'counted' });
    try {
      await this.fallback(limit).consume(bucket);
      return 0;
    } catch (error) {
      if (error instanceof RateLimiterRes) return error.msBeforeNext;
      throw error;
    }
  }

  /** The counters' answer, or a failure once RATE_LIMIT_TIMEOUT_MS has passed without one. */
  private async withinTimeout<T>(operation: Promise<T>): Promise<T> {
    const { timeoutMs } = this.config.rateLimitStore;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([operation, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Deletes the PostgreSQL counters of windows that have ended, which would otherwise stay for
   * ever (one row per bucket and limit). Any replica may run it; a failure waits for the next.
   */
  async prune(): Promise<void> {
    try {
      await this.dataSource.query('DELETE FROM rate_limit_counter WHERE expire < $1', [Date.now()]);
    } catch (error) {
      this.logger.warn(`Pruning ended rate limit windows failed: ${String(error)}`);
    }
  }

  private limiter(limit: LimitRule): RateLimiterAbstract {
    const key = `${limit.id}:${limit.points}:${limit.windowSeconds}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const options = {
        keyPrefix: `${this.config.redisNamespace}:rl:${key}`,
        points: limit.points,
        duration: limit.windowSeconds,
      };
      limiter = this.redis
        ? new RateLimiterRedis({ ...options, storeClient: this.redis, rejectIfRedisNotReady: true })
        : new RateLimiterPostgres({
            ...options,
            storeClient: this.unnamedQueries(),
            storeType: 'client',
            tableName: 'rate_limit_counter',
            tableCreated: true,
            clearExpiredByTimeout: false,
          });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  /**
   * The app's pool, with the library's named prepared statements sent unnamed: the embedded
   * database serves every pooled connection from one backend, where a statement one connection
   * prepared already exists for the next, and preparing it again fails.
   */
  private unnamedQueries(): { query(q: { text: string; values?: unknown[] }): Promise<unknown> } {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    return { query: (q) => pool.query(q.text, q.values) };
  }

  /** This replica's own counter for a limit, used only while the shared ones are away. */
  private fallback(limit: LimitRule): RateLimiterMemory {
    const key = `${limit.id}:${limit.points}:${limit.windowSeconds}`;
    let fallback = this.fallbacks.get(key);
    if (!fallback) {
      fallback = new RateLimiterMemory({
        points: Math.ceil(limit.points / this.config.rateLimitStore.fallbackReplicas),
        duration: limit.windowSeconds,
      });
      this.fallbacks.set(key, fallback);
    }
    return fallback;
  }
}
