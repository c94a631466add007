import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Metrics } from '../observability/metrics';

/** Tool calls refused by a rate limit, and checked without the shared counters, on /metrics. */
@Injectable()
export class RateLimitMetrics {
  readonly rejections: Counter<'surface'>;
  readonly fallbacks: Counter<'outcome'>;

  constructor(metrics: Metrics) {
    this.rejections = new Counter({
      name: 'portico_rate_limit_rejections_total',
      help: 'Tool calls refused by a rate limit, by surface (mcp, rest).',
      labelNames: ['surface'] as const,
      registers: [metrics.registry],
    });
    this.fallbacks = new Counter({
      name: 'portico_rate_limit_fallbacks_total',
      help: 'Rate limit checks made while the shared counters (Redis or PostgreSQL) could not be reached, by outcome: counted (on this replica alone) or refused (RATE_LIMIT_FAIL_CLOSED).',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
  }
}
