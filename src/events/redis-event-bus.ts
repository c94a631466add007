import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { RESYNC } from './event-bus';
import { ReplicaId } from './replica-id';
import { type Envelope, ReplicatedEventBus } from './replicated-event-bus';

/**
 * Crosses replicas with Redis pub/sub (REDIS_URL), on the channel `<REDIS_NAMESPACE>:events`: the
 * replicas of one deployment share it, another deployment on the same Redis has its own.
 */
@Injectable()
export class RedisEventBus extends ReplicatedEventBus implements OnModuleInit, OnModuleDestroy {
  private publisher!: Redis;
  private subscriber!: Redis;
  private readonly channel: string;

  constructor(
    private readonly config: AppConfig,
    replica: ReplicaId,
  ) {
    super(replica);
    this.channel = `${config.redisNamespace}:events`;
  }

  async onModuleInit(): Promise<void> {
    const url = this.config.redisUrl!;
    this.publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    this.subscriber = new Redis(url, { lazyConnect: true });
    for (const connection of [this.publisher, this.subscriber]) {
      connection.on('error', (error: Error) => this.log.warn(`Redis: ${error.message}`));
    }
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
    this.subscriber.on('message', (_channel: string, payload: string) => {
      try {
        this.receive(JSON.parse(payload) as Envelope);
      } catch (error) {
        this.undeliverable(error);
      }
    });
    await this.subscriber.subscribe(this.channel);
    // After a reconnect ioredis subscribes again by itself; ours queues behind that, so once it is
    // answered the channel is live and the caches may drop what they hold.
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => this.deliver(RESYNC),
        (error: Error) => this.log.warn(`Redis: could not subscribe again: ${error.message}`),
      );
    });
    this.deliver(RESYNC);
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }

  protected override async send(envelope: string): Promise<void> {
    await this.publisher.publish(this.channel, envelope);
  }
}
