import { isDeepStrictEqual } from 'node:util';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Metrics } from '../health/metrics';
import { type GuardState, UpstreamGuard } from './upstream-guard';
import { type UpstreamEndpoint, type UpstreamTarget } from './upstream-target';

interface Guarded {
  slug: string;
  endpoint: UpstreamEndpoint;
  guard: UpstreamGuard;
}

/** What a gateway never called on this replica looks like. */
const UNTOUCHED: GuardState = {
  circuit: { state: 'closed', failures: 0, retryAt: null, lastFailure: null },
  inFlight: 0,
  queued: 0,
};

/**
 * The guard (circuit breaker and call cap) of each gateway this replica has called. State is per
 * replica: each replica learns for itself that an upstream is down, within a few calls. A gateway
 * whose endpoint changes starts afresh, since what failed was the old one.
 */
@Injectable()
export class UpstreamGuards {
  private readonly logger = new Logger('UpstreamGuards');
  private readonly guards = new Map<string, Guarded>();

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    metrics.readUpstreamGuardsFrom(() =>
      [...this.guards.values()].map(({ slug, guard }) => ({ gateway: slug, ...guard.state() })),
    );
  }

  for(target: UpstreamTarget): UpstreamGuard {
    const known = this.guards.get(target.gatewayId);
    if (known && isDeepStrictEqual(known.endpoint, target.endpoint)) {
      known.slug = target.slug;
      return known.guard;
    }
    const entry: Guarded = {
      slug: target.slug,
      endpoint: target.endpoint,
      guard: new UpstreamGuard(this.config.upstreamResilience, {
        refused: (reason) => this.metrics.upstreamRefusals.inc({ gateway: entry.slug, reason }),
        changed: (state, snapshot) => {
          if (state === 'open')
            this.logger.warn(
              `Circuit breaker of upstream '${entry.slug}' opened after ${snapshot.failures} failures in a row (last: ${snapshot.lastFailure ?? 'unknown'}); next trial at ${snapshot.retryAt?.toISOString() ?? 'now'}`,
            );
          else
            this.logger.log(`Circuit breaker of upstream '${entry.slug}' closed: it answers again`);
        },
      }),
    };
    this.guards.set(target.gatewayId, entry);
    return entry.guard;
  }

  /** The gateway's guard as this replica sees it. */
  stateOf(gatewayId: string): GuardState {
    return this.guards.get(gatewayId)?.guard.state() ?? UNTOUCHED;
  }
}
