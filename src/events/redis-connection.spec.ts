import { type Logger } from '@nestjs/common';
import { redisConnection } from './redis-connection';

describe('redisConnection', () => {
  it('leaves subscribing again after a reconnect to its subscriber, never to ioredis', () => {
    // ioredis's own subscribe after a reconnect has no handler: when the connection is lost again
    // before it is answered, its rejection goes unhandled (the Redis event bus's integration test
    // loses a reconnect at its subscribe; it needs a Redis server, this holds without one). The
    // event bus subscribes on `ready` itself, and handles the failure.
    const redis = redisConnection(
      'redis://127.0.0.1:1',
      'subscriber',
      { redisCommandTimeoutMs: 500, redisConnectTimeoutMs: 500 },
      { warn: () => undefined, log: () => undefined } as unknown as Logger,
    );
    try {
      expect(redis.options).toMatchObject({
        autoResubscribe: false,
        autoResendUnfulfilledCommands: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
      });
    } finally {
      redis.disconnect();
    }
  });
});
