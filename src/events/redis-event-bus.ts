import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { RESYNC } from './event-bus';
import { ReplicaId } from './replica-id';
import { type Envelope, ReplicatedEventBus } from './replicated-event-bus';

const CHANNEL = 'portico:events';

/** Crosses replicas with Redis pub/sub (REDIS_URL). */
@Injectable()
export class RedisEventBus extends ReplicatedEventBus implements OnModuleInit, OnModuleDestroy {
  private publisher!: Redis;
  private subscriber!: Redis;

  constructor(
    private readonly config: AppConfig,
    replica: ReplicaId,
  ) {
    super(replica);
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
    await this.subscriber.subscribe(CHANNEL);
    // After a reconnect ioredis subscribes again by itself; ours queues behind that, so once it is
    // answered the channel is live and the caches may drop what they hold.
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(CHANNEL).then(
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
    await this.publisher.publish(CHANNEL, envelope);
  }
}
