import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { type PorticoEvent } from './event-bus';
import { InProcessEventBus } from './in-process-event-bus';

const CHANNEL = 'portico:events';

/** Crosses replicas with Redis pub/sub (REDIS_URL). */
@Injectable()
export class RedisEventBus extends InProcessEventBus implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(RedisEventBus.name);
  private publisher!: Redis;
  private subscriber!: Redis;

  constructor(private readonly config: AppConfig) {
    super();
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
        this.deliver(JSON.parse(payload) as PorticoEvent);
      } catch (error) {
        this.log.error(
          `Undeliverable event: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    await this.subscriber.subscribe(CHANNEL);
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }

  override async publish(event: PorticoEvent): Promise<void> {
    await this.publisher.publish(CHANNEL, JSON.stringify(event));
  }
}
