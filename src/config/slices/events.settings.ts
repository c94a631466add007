/**
 * The event bus when its channel (Redis, or PostgreSQL's LISTEN/NOTIFY) is away: publishing
 * never fails or blocks a request for long, events wait in a bounded queue, and a replica that
 * hears nothing drops its caches now and then.
 */
export interface EventBusConfig {
  /** How long a publish waits for the channel before it returns with its event queued. */
  publishTimeoutMs: number;
  /** Events kept for the channel while it is away; past this they are dropped and a resync follows. */
  queueMaxBytes: number;
  /** While the channel is unheard, every cache is dropped this often (0: only once it returns). */
  resyncWhileDownMs: number;
  /** A Redis command unanswered this long fails, and its connection is reset. */
  redisCommandTimeoutMs: number;
  redisConnectTimeoutMs: number;
}

/** Rate limits when their counters (Redis or PostgreSQL) cannot be reached. */
export interface RateLimitStoreConfig {
  /** How long a call waits for the counters before the fallback decides. */
  timeoutMs: number;
  /** Refuse calls under a limit while the counters are away, instead of counting per replica. */
  failClosed: boolean;
  /** The fallback allows each replica the limit's points divided by this, rounded up. */
  fallbackReplicas: number;
}

/** Redis and the event bus between replicas, and the rate limits' counters. Injected by the modules that need it. */
export abstract class EventSettings {
  abstract readonly redisUrl: string | null;
  /**
   * What this deployment's Redis channel and keys start with, so that deployments sharing one
   * Redis stay apart.
   */
  abstract readonly redisNamespace: string;
  abstract readonly eventBus: EventBusConfig;
  abstract readonly rateLimitStore: RateLimitStoreConfig;
}
