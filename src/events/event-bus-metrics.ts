import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Metrics } from '../observability/metrics';
import { EventBus } from './event-bus';
import { ReplicatedEventBus } from './replicated-event-bus';

/**
 * The event bus on this replica's /metrics, read at each scrape: whether it hears the other
 * replicas, what waits to be published, and what was dropped or resynced. The embedded bus has
 * no channel and no series.
 */
@Injectable()
export class EventBusMetrics {
  constructor(metrics: Metrics, bus: EventBus) {
    if (!(bus instanceof ReplicatedEventBus)) return;
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [metrics.registry],
        collect() {
          this.set(read());
        },
      });
    gauge(
      'portico_event_bus_listening',
      'Whether this replica hears the other replicas over the event bus (Redis or LISTEN/NOTIFY): 1 yes, 0 no.',
      () => (bus.state().listening ? 1 : 0),
    );
    gauge(
      'portico_event_bus_queued_events',
      'Events published on this replica that wait for the channel to take them.',
      () => bus.state().queued,
    );
    const counter = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers: [metrics.registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    counter(
      'portico_event_bus_dropped_events_total',
      'Events dropped because the queue was full (the other replicas resync instead).',
      () => bus.state().dropped,
    );
    counter(
      'portico_event_bus_resyncs_total',
      'Times this replica dropped every cache because it may have missed events.',
      () => bus.state().resyncs,
    );
  }
}
