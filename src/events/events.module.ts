import { type DynamicModule, Global, Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type DatabaseSettings } from '../config/slices/database.settings';
import { type EventSettings } from '../config/slices/events.settings';
import { EventBus } from './event-bus';
import { EventBusMetrics } from './event-bus-metrics';
import { InProcessEventBus } from './in-process-event-bus';
import { PgNotifyEventBus } from './pg-notify-event-bus';
import { RedisEventBus } from './redis-event-bus';
import { ReplicaId } from './replica-id';

@Global()
@Module({})
export class EventsModule {
  /** Redis when REDIS_URL is set, else LISTEN/NOTIFY on PostgreSQL, else in-process (embedded). */
  static forRoot(config: DatabaseSettings & EventSettings): DynamicModule {
    const bus = config.redisUrl
      ? RedisEventBus
      : config.database.mode === 'postgres'
        ? PgNotifyEventBus
        : InProcessEventBus;
    return {
      module: EventsModule,
      providers: [
        { provide: EventBus, useClass: bus },
        { provide: ReplicaId, useValue: { value: randomBytes(6).toString('hex') } },
        EventBusMetrics,
      ],
      exports: [EventBus, ReplicaId],
    };
  }
}
