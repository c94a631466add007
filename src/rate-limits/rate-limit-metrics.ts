import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Metrics } from '../health/metrics';

/** Tool calls refused by a rate limit, on this replica's /metrics. */
@Injectable()
export class RateLimitMetrics {
  readonly rejections: Counter<'surface'>;

  constructor(metrics: Metrics) {
    this.rejections = new Counter({
      name: 'portico_rate_limit_rejections_total',
      help: 'Tool calls refused by a rate limit, by surface (mcp, rest).',
      labelNames: ['surface'] as const,
      registers: [metrics.registry],
    });
  }
}
