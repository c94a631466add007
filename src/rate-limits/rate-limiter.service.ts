import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import {
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { type Pool } from 'pg';
import { DataSource } from 'typeorm';
import { type Principal } from '../auth/principal';
import { AppConfig } from '../config/app-config';
import { type RateLimitKey } from './rate-limit.entity';
import { RateLimitErrorCode, RateLimitException } from './rate-limit.exception';

/** One limit as the call path reads it. */
export interface LimitRule {
  id: string;
  per: RateLimitKey;
  serverId: string | null;
  toolId: string | null;
  points: number;
  windowSeconds: number;
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
 * Counts tool calls against limits with `rate-limiter-flexible`, in Redis when REDIS_URL is set
 * and else in PostgreSQL (the `rate_limit_counter` table), so every replica counts in one place.
 * A limit's counters are keyed by its id, window and points: editing a limit starts it afresh.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private redis: Redis | null = null;
  private pruneTimer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (!this.config.redisUrl)
      this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.pruneTimer);
    this.limiters.clear();
    if (this.redis) await this.redis.quit().catch(() => undefined);
  }

  /**
   * Counts one call of `toolId` by `principal` against every limit that applies, and throws
   * RateLimitException (`Exceeded`, with `retryAfterSeconds`) past any of them. Without an
   * applicable limit no store is touched.
   */
  async consume(limits: readonly LimitRule[], principal: Principal, toolId: string): Promise<void> {
    let retryAfterMs = 0;
    for (const limit of limits) {
      if (limit.toolId !== null && limit.toolId !== toolId) continue;
      try {
        await this.limiter(limit).consume(bucketOf(limit.per, principal));
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) {
          this.logger.warn(`Rate limit store failed: ${String(error)}`);
          throw new RateLimitException(
            RateLimitErrorCode.Unavailable,
            'Rate limits cannot be checked right now; the call was not made.',
          );
        }
        retryAfterMs = Math.max(retryAfterMs, error.msBeforeNext);
      }
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
      limiter = this.config.redisUrl
        ? new RateLimiterRedis({ ...options, storeClient: this.redisClient() })
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

  private redisClient(): Redis {
    if (!this.redis) {
      this.redis = new Redis(this.config.redisUrl!, { maxRetriesPerRequest: 2 });
      this.redis.on('error', (error: Error) => this.logger.warn(`Redis: ${error.message}`));
    }
    return this.redis;
  }
}
