import { type Logger } from '@nestjs/common';
import { LastKnownCache } from '../../common/last-known-cache';
import { type EventBus } from '../../events/event-bus';
import { type Metrics } from '../../observability/metrics';

/**
 * What is read from the database to serve a scope (its directory, its skills), kept by the
 * scope's server id (`/mcp`: the empty key) until the bus says the catalogue or a server changed,
 * and served as last known while the database is away (see LastKnownCache).
 */
export class ScopeCache<V> extends LastKnownCache<V> {
  private unsubscribe?: () => void;

  /** `name` labels the stale-read metric; `what` names an entry in log lines ("the skills"). */
  constructor(
    private readonly bus: EventBus,
    metrics: Metrics,
    logger: Logger,
    name: string,
    what: string,
  ) {
    super({
      limit: Infinity,
      onStale: () => metrics.staleReads.inc({ cache: name }),
      logger,
      describe: (key) => `${what} of ${key === '' ? '/mcp' : `server ${key}`}`,
    });
  }

  /** From now on, every entry is read again after a change of the catalogue or of a server. */
  follow(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'catalog.changed' || event.type === 'servers.changed')
        this.invalidateAll();
    });
  }

  close(): void {
    this.unsubscribe?.();
  }
}
