import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { type NextFunction, type Request, type Response } from 'express';
import { type JSONRPCResponse } from '@modelcontextprotocol/server';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type CallOutcome = 'ok' | 'tool_error' | 'error';

/** One upstream's health as the registry last saw it, for `portico_upstream_up`. */
export interface UpstreamHealth {
  gateway: string;
  /** 1 when its last contact succeeded, 0 when it is unreachable, failing, incompatible or disabled. */
  up: number;
}

/** One upstream's guard on this replica, for the circuit and call gauges. */
export interface UpstreamGuardMetrics {
  gateway: string;
  circuit: { state: 'closed' | 'open' | 'half-open' };
  inFlight: number;
  queued: number;
}

const CIRCUIT_STATES = ['closed', 'half-open', 'open'] as const;
/**
 * How often the event loop's delay is sampled, for `portico_nodejs_eventloop_lag_*`: ten times a
 * second is plenty for percentiles over a scrape interval, where prom-client's 10 ms default woke
 * an idle replica a hundred times a second (about three quarters of its steady idle CPU).
 */
const EVENT_LOOP_SAMPLE_MS = 100;

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

  readonly listens = new Gauge({
    name: 'portico_mcp_listens_local',
    help: 'Listens (subscriptions/listen of 2026-07-28) this replica holds open.',
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
    help: 'Whether each enabled upstream (gateway) was healthy at its last contact: 1 healthy, 0 unreachable, failing or incompatible.',
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

  /** Filled at each scrape from the guards of the upstreams, as are the two gauges after it. */
  readonly upstreamCircuit = new Gauge({
    name: 'portico_upstream_circuit_state',
    help: "Each upstream's circuit breaker on this replica: 1 for the state it is in (closed, half-open, open), 0 for the others. Only upstreams this replica has called.",
    labelNames: ['gateway', 'state'] as const,
    registers: [this.registry],
    collect: () => {
      this.upstreamCircuit.reset();
      for (const { gateway, circuit } of this.upstreamGuards())
        for (const state of CIRCUIT_STATES)
          this.upstreamCircuit.set({ gateway, state }, circuit.state === state ? 1 : 0);
    },
  });

  readonly upstreamInFlight = new Gauge({
    name: 'portico_upstream_calls_in_flight',
    help: 'Requests to each upstream running now on this replica (at most UPSTREAM_MAX_CONCURRENT).',
    labelNames: ['gateway'] as const,
    registers: [this.registry],
    collect: () => {
      this.upstreamInFlight.reset();
      for (const { gateway, inFlight } of this.upstreamGuards())
        this.upstreamInFlight.set({ gateway }, inFlight);
    },
  });

  readonly upstreamQueued = new Gauge({
    name: 'portico_upstream_calls_queued',
    help: 'Requests to each upstream waiting for a slot on this replica (at most UPSTREAM_QUEUE).',
    labelNames: ['gateway'] as const,
    registers: [this.registry],
    collect: () => {
      this.upstreamQueued.reset();
      for (const { gateway, queued } of this.upstreamGuards())
        this.upstreamQueued.set({ gateway }, queued);
    },
  });

  readonly upstreamRefusals = new Counter({
    name: 'portico_upstream_rejected_calls_total',
    help: 'Requests to an upstream refused without being sent, by reason: circuit-open (its breaker is open), queue-full, queue-timeout.',
    labelNames: ['gateway', 'reason'] as const,
    registers: [this.registry],
  });

  private upstreamGuards: () => UpstreamGuardMetrics[] = () => [];

  readonly tokenExchanges = new Counter({
    name: 'portico_upstream_token_exchanges_total',
    help: 'Requests to the security token service of token-exchange upstreams (RFC 8693), by what was asked (exchange: for a caller; own: Portico’s own token) and outcome: ok, refused (the service said no), failed (it could not be reached).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly oauthRefreshes = new Counter({
    name: 'portico_upstream_oauth_refreshes_total',
    help: 'Refreshes (and client-credentials fetches) of upstream OAuth tokens, by outcome: ok, failed (kept, retried), revoked (the grant is gone; the account must reconnect).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly connectionsDropped = new Counter({
    name: 'portico_http_connections_dropped_total',
    help: 'Connections closed unanswered because this replica held HTTP_MAX_CONNECTIONS already.',
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

  readonly policyErrors = new Counter({
    name: 'portico_policy_errors_total',
    help: 'Evaluations of a policy expression that failed (no such key, no such overload, not a bool), by policy name; a failed policy refuses (fails closed).',
    labelNames: ['policy'] as const,
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
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'portico_',
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  }

  /** Where `portico_upstream_up` reads the upstreams' health at each scrape. */
  readUpstreamHealthFrom(source: () => Promise<UpstreamHealth[]>): void {
    this.upstreamHealth = source;
  }

  /** Where the circuit and call gauges read each upstream's guard at each scrape. */
  readUpstreamGuardsFrom(source: () => UpstreamGuardMetrics[]): void {
    this.upstreamGuards = source;
  }

  /**
   * Times one request from now until its response closes, under the route `routeOf` names then:
   * a route pattern, never the raw path.
   */
  timeRequest(request: IncomingMessage, response: ServerResponse, routeOf: () => string): void {
    const started = performance.now();
    response.once('close', () =>
      this.httpRequestSeconds.observe(
        { method: request.method ?? '', route: routeOf(), status: String(response.statusCode) },
        (performance.now() - started) / 1000,
      ),
    );
  }

  /** One tools/call; `gateway` is empty when no upstream was reached (unknown or local tool). */
  recordCall(gateway: string, answer: JSONRPCResponse, seconds: number): void {
    const outcome: CallOutcome =
      'error' in answer ? 'error' : answer.result.isError === true ? 'tool_error' : 'ok';
    this.toolCalls.inc({ gateway: gateway || 'none', outcome });
    this.toolCallSeconds.observe(seconds);
  }
}

/**
 * Times every HTTP request into `portico_http_request_duration_seconds`, labelled by the route
 * pattern Express matched (`/api/v1/gateways/:id`), so that ids never become label values.
 */
export function httpMetrics(metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    metrics.timeRequest(request, response, () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      return typeof route === 'string' ? `${request.baseUrl}${route}` : 'unmatched';
    });
    next();
  };
}
