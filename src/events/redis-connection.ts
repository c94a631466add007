import { type Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { type EventBusConfig } from '../config/slices/events.settings';

/** How often a connection is asked PING, so that one whose packets are dropped is noticed. */
const HEALTH_EVERY_MS = 2000;
/** The most a lost connection waits between attempts to connect again. */
const RECONNECT_MAX_MS = 2000;

/**
 * A Redis connection that never makes a caller wait long. A command unanswered within
 * `redisCommandTimeoutMs` fails, and the socket is reset: a partition that drops packets leaves a
 * socket that looks open for minutes. While the connection is down a command fails at once
 * instead of waiting for it. It is checked with PING every two seconds, so a dead socket is found
 * even when nothing else is sent. Losses and recoveries are logged once each, never thrown.
 */
export function redisConnection(
  url: string,
  name: string,
  settings: Pick<EventBusConfig, 'redisCommandTimeoutMs' | 'redisConnectTimeoutMs'>,
  logger: Logger,
): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: settings.redisCommandTimeoutMs,
    socketTimeout: settings.redisCommandTimeoutMs,
    connectTimeout: settings.redisConnectTimeoutMs,
    keepAlive: 5000,
    maxRetriesPerRequest: 0,
    // A command that timed out has failed for its caller, who may try again: never send it twice.
    autoResendUnfulfilledCommands: false,
    // ioredis's own subscribe after a reconnect has no one to hear its failure: a connection lost
    // again at once left an unhandled rejection. A subscriber subscribes again itself, on `ready`.
    autoResubscribe: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
  });
  let lost = false;
  redis.on('error', (error: Error) => {
    if (lost) return;
    lost = true;
    logger.warn(`Redis (${name}): ${error.message}; connecting again`);
  });
  redis.on('ready', () => {
    if (lost) logger.log(`Redis (${name}) is back`);
    lost = false;
  });
  const health = setInterval(() => {
    if (redis.status === 'ready') redis.ping().catch(() => undefined);
  }, HEALTH_EVERY_MS);
  health.unref();
  redis.on('end', () => clearInterval(health));
  return redis;
}
