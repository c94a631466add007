import { isDeepStrictEqual } from 'node:util';
import { Injectable, Logger } from '@nestjs/common';
import {
  type GatewayUpstreamSettings,
  tunedUpstream,
} from '../../config/settings/gateway-settings';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { Metrics } from '../../observability/metrics';
import { Admission, type AdmissionState } from './concurrency-limiter';
import { type UpstreamEndpoint, type UpstreamTarget } from '../upstream-target';
import { UPSTREAM_ADMISSION } from '../upstream-error';

interface Admitted {
  slug: string;
  endpoint: UpstreamEndpoint;
  settings: GatewayUpstreamSettings | null;
  admission: Admission;
}

/** What a gateway never called on this replica looks like. */
const UNTOUCHED: AdmissionState = {
  circuit: { state: 'closed', failures: 0, retryAt: null, lastFailure: null },
  inFlight: 0,
  queued: 0,
};

/**
 * The admission (circuit breaker and call cap) of each gateway this replica has called. State is per
 * replica: each replica learns for itself that an upstream is down, within a few calls. A gateway
 * whose endpoint changes starts afresh, since what failed was the old one; so does one whose own
 * settings change, with them.
 */
@Injectable()
export class UpstreamAdmissions {
  private readonly logger = new Logger('UpstreamAdmissions');
  private readonly admissions = new Map<string, Admitted>();

  constructor(
    private readonly config: UpstreamSettings,
    private readonly metrics: Metrics,
  ) {
    metrics.readUpstreamGuardsFrom(() =>
      [...this.admissions.values()].map(({ slug, admission }) => ({
        gateway: slug,
        ...admission.state(),
      })),
    );
  }

  for(target: UpstreamTarget): Admission {
    const known = this.admissions.get(target.gatewayId);
    const settings = target.settings ?? null;
    if (
      known &&
      isDeepStrictEqual(known.endpoint, target.endpoint) &&
      isDeepStrictEqual(known.settings, settings)
    ) {
      known.slug = target.slug;
      return known.admission;
    }
    const entry: Admitted = {
      slug: target.slug,
      endpoint: target.endpoint,
      settings,
      admission: new Admission(
        tunedUpstream(this.config, settings).resilience,
        UPSTREAM_ADMISSION,
        {
          refused: (reason) => this.metrics.upstreamRefusals.inc({ gateway: entry.slug, reason }),
          changed: (state, snapshot) => {
            if (state === 'open')
              this.logger.warn(
                `Circuit breaker of upstream '${entry.slug}' opened after ${snapshot.failures} failures in a row (last: ${snapshot.lastFailure ?? 'unknown'}); next trial at ${snapshot.retryAt?.toISOString() ?? 'now'}`,
              );
            else
              this.logger.log(
                `Circuit breaker of upstream '${entry.slug}' closed: it answers again`,
              );
          },
        },
      ),
    };
    this.admissions.set(target.gatewayId, entry);
    return entry.admission;
  }

  /** The gateway's admission as this replica sees it. */
  stateOf(gatewayId: string): AdmissionState {
    return this.admissions.get(gatewayId)?.admission.state() ?? UNTOUCHED;
  }

  forget(gatewayId: string): void {
    this.admissions.delete(gatewayId);
  }
}
