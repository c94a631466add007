import { Injectable } from '@nestjs/common';
import { type JSONRPCResponse } from '@modelcontextprotocol/sdk/types.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type CallOutcome = 'ok' | 'tool_error' | 'error';

/** One upstream's health as the registry last saw it, for `portico_upstream_up`. */
export interface UpstreamHealth {
  gateway: string;
  /** 1 when its last contact succeeded, 0 when it was unreachable or is disabled. */
  up: number;
}

/** Prometheus metrics of this replica, served at GET /metrics. */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly toolCalls = new Counter({
    name: 'portico_tool_calls_total',
    help: 'tools/call requests served, by gateway and outcome (ok, tool_error = isError result, error = JSON-RPC error).',
    labelNames: ['gateway', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly toolCallSeconds = new Histogram({
    name: 'portico_tool_call_duration_seconds',
    help: 'Time to answer tools/call, upstream included.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly sessions = new Gauge({
    name: 'portico_mcp_sessions_local',
    help: 'MCP sessions this replica currently holds in memory.',
    registers: [this.registry],
  });

  readonly syncs = new Counter({
    name: 'portico_syncs_total',
    help: 'Upstream syncs, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly httpRequestSeconds = new Histogram({
    name: 'portico_http_request_duration_seconds',
    help: 'HTTP requests served, by method, route pattern and status (MCP endpoints included; an event stream counts until it ends).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** Filled at each scrape from `upstreamHealth`, so that it always says what the database says. */
  readonly upstreamUp = new Gauge({
    name: 'portico_upstream_up',
    help: 'Whether each enabled upstream (gateway) answered at its last contact: 1 up, 0 unreachable.',
    labelNames: ['gateway'] as const,
    registers: [this.registry],
    collect: async () => {
      if (!this.upstreamHealth) return;
      // With the database unavailable the scrape still answers, with the last values read.
      const health = await this.upstreamHealth().catch(() => null);
      if (!health) return;
      this.upstreamUp.reset();
      for (const { gateway, up } of health) this.upstreamUp.set({ gateway }, up);
    },
  });

  private upstreamHealth: (() => Promise<UpstreamHealth[]>) | null = null;

  readonly oauthRefreshes = new Counter({
    name: 'portico_upstream_oauth_refreshes_total',
    help: 'Refreshes (and client-credentials fetches) of upstream OAuth tokens, by outcome: ok, failed (kept, retried), revoked (the grant is gone; the account must reconnect).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly databaseConnectionErrors = new Counter({
    name: 'portico_database_connection_errors_total',
    help: 'Errors raised by pooled database connections (a backend terminated, a connection reset); each ends that connection, and the pool opens another.',
    registers: [this.registry],
  });

  readonly staleReads = new Counter({
    name: 'portico_stale_cache_reads_total',
    help: 'Lookups served from what a cache last knew because the database was unavailable, by cache.',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });

  readonly auditDropped = new Counter({
    name: 'portico_audit_entries_dropped_total',
    help: 'Audit entries dropped, oldest first, because the buffer was full while the database refused them.',
    registers: [this.registry],
  });

  readonly auditBuffered = new Gauge({
    name: 'portico_audit_entries_buffered',
    help: 'Audit entries waiting in memory to be written.',
    registers: [this.registry],
  });

  readonly unhandledRejections = new Counter({
    name: 'portico_unhandled_rejections_total',
    help: 'Promise rejections nothing handled, caught by the last-resort handler (each is a bug).',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'portico_' });
  }

  /** Where `portico_upstream_up` reads the upstreams' health at each scrape. */
  readUpstreamHealthFrom(source: () => Promise<UpstreamHealth[]>): void {
    this.upstreamHealth = source;
  }

  /** One HTTP request; `route` is the matched route pattern, never the raw path. */
  recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequestSeconds.observe({ method, route, status: String(status) }, seconds);
  }

  /** One tools/call; `gateway` is empty when no upstream was reached (unknown or local tool). */
  recordCall(gateway: string, answer: JSONRPCResponse, seconds: number): void {
    const outcome: CallOutcome =
      'error' in answer ? 'error' : answer.result.isError === true ? 'tool_error' : 'ok';
    this.toolCalls.inc({ gateway: gateway || 'none', outcome });
    this.toolCallSeconds.observe(seconds);
  }
}
