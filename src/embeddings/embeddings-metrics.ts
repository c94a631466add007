import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Metrics } from '../observability/metrics';

/** Why a search ranked without the embeddings provider. */
export type FallbackReason = 'timeout' | 'error' | 'circuit_open' | 'tool_vectors_missing';

/** Tool search's use of the embeddings provider, on this replica's /metrics. */
@Injectable()
export class EmbeddingsMetrics {
  readonly requests: Counter<'stage' | 'outcome'>;
  readonly fallbacks: Counter<'reason'>;

  constructor(metrics: Metrics) {
    this.requests = new Counter({
      name: 'portico_embeddings_requests_total',
      help: 'Requests to the embeddings provider, by stage (query, index) and outcome (ok, timeout, error).',
      labelNames: ['stage', 'outcome'] as const,
      registers: [metrics.registry],
    });
    this.fallbacks = new Counter({
      name: 'portico_tool_search_provider_fallbacks_total',
      help: 'tool_search queries ranked by the embedded rankers alone although an embeddings provider is set, by reason.',
      labelNames: ['reason'] as const,
      registers: [metrics.registry],
    });
  }
}
