import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { EventSettings } from '../config/slices/events.settings';
import { redisConnection } from './redis-connection';
import { ReplicaId } from './replica-id';
import { type Envelope, ReplicatedEventBus } from './replicated-event-bus';
import { errorMessage } from '../common/error-message';

/**
 * Crosses replicas with Redis pub/sub (REDIS_URL), on the channel `<REDIS_NAMESPACE>:events`: the
 * replicas of one deployment share it, another deployment on the same Redis has its own.
 * A replica starts, and keeps serving, while Redis is away; see ReplicatedEventBus for what
 * publishing and the caches do meanwhile.
 */
@Injectable()
export class RedisEventBus extends ReplicatedEventBus implements OnModuleInit, OnModuleDestroy {
  private publisher!: Redis;
  private subscriber!: Redis;
  private subscribing: Promise<void> | null = null;
  private readonly channel: string;

  constructor(
    private readonly config: EventSettings,
    replica: ReplicaId,
    private readonly dataSource: DataSource,
  ) {
    super(replica, config.eventBus);
    this.channel = `${config.redisNamespace}:events`;
  }

  async onModuleInit(): Promise<void> {
    const url = this.config.redisUrl!;
    this.publisher = redisConnection(url, 'publisher', this.settings, this.log);
    this.subscriber = redisConnection(url, 'subscriber', this.settings, this.log);
    this.publisher.on('ready', () => this.retryPublishing());
    this.subscriber.on('message', (_channel: string, payload: string) => {
      try {
        this.receive(JSON.parse(payload) as Envelope);
      } catch (error) {
        this.undeliverable(error);
      }
    });
    // Subscribed on every connect (ioredis's own resubscribe is off, see redisConnection): once it
    // is answered the channel is live (see `heard`).
    this.subscriber.on('ready', () => {
      this.subscribing = this.subscriber.subscribe(this.channel).then(
        () => this.heard(),
        (error: Error) => this.log.warn(`Redis: could not subscribe: ${error.message}`),
      );
    });
    this.subscriber.on('close', () => this.deaf('the Redis connection closed'));
    // Redis comes back in its own time: until then events wait, and the caches resync.
    const publisherReady = this.publisher.connect().catch(() => undefined);
    try {
      await this.subscriber.connect();
      await this.subscribing;
    } catch (error) {
      this.deaf(`unreachable at start: ${errorMessage(error)}`);
    }
    await publisherReady;
  }

  async onModuleDestroy(): Promise<void> {
    this.stop();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }

  protected override async send(envelope: string): Promise<void> {
    await this.publisher.publish(this.channel, envelope);
  }

  /** Only while the database answers: then the caches refill with what it holds now. */
  protected override async mayResync(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.settings.redisCommandTimeoutMs);
    });
    try {
      return await Promise.race([
        this.dataSource.query('SELECT 1').then(
          () => true,
          () => false,
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
