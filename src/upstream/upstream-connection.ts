import {
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type JSONRPCNotification,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/client';
import { type UpstreamFailure } from './upstream-error';
import { type Admission } from './resilience/concurrency-limiter';
import { type RetryPolicy } from './resilience/upstream-retry';

export const PORTICO_CLIENT: Implementation = { name: 'portico', version: '1.0.0' };

/** A request an upstream makes of its client (sampling, elicitation, roots). */
export interface UpstreamAsk {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * Where the messages an upstream sends during one request go: the caller that made it. Tied to
 * the request by the wire (its own stream) or by its progress token, never by guessing.
 */
export interface RequestSink {
  notify(notification: JSONRPCNotification): void;
  /**
   * An upstream's request of the client during this request (a 2025 upstream's elicitation,
   * sampling, roots); absent: such a request is refused. Its timeout does not run while it is
   * awaited.
   */
  ask?(request: UpstreamAsk): Promise<Result>;
}

/** What a request says of the client it is made for, which a 2026-07-28 upstream hears of. */
export interface CallerMeta {
  capabilities?: ClientCapabilities;
  logLevel?: string | null;
}

/**
 * Who a request acts for: the Portico user whose own OAuth token a per-user upstream gets, and the
 * principal subject whose own token a token-exchange upstream's is exchanged for (null: a caller
 * whose token cannot be exchanged, such as an API token).
 */
export interface ActingFor {
  userId: string | null;
  subject?: string | null;
}

/** Where messages outside any request go. */
export interface UpstreamListener {
  notification?(notification: JSONRPCNotification): void;
  request?(request: UpstreamAsk): Promise<Result>;
  lost?(reason: UpstreamFailure): void;
}

/**
 * Whose connections a request uses. A 2025 session has its own (`session`), opened on first use
 * and closed with it, so that whatever an upstream sends outside a call (logs, list changes, its
 * own requests) can only reach that session. A request without a session (the 2026-07-28 wire,
 * REST invoke, the playground) shares a pool keyed by what its client declared (`shared`).
 */
export interface Affinity {
  /** Unique per session, or the fingerprint of the declaration for shared connections. */
  readonly key: string;
  readonly shared: boolean;
  /** What Portico declares upstream for the caller's client. */
  readonly capabilities: ClientCapabilities;
  /** Whose own token a per-user OAuth or token-exchange upstream gets. */
  readonly actingFor: ActingFor;
  /** What an upstream sends outside calls, with the gateway it came from; none when shared. */
  readonly listener?: (gatewayId: string) => UpstreamListener;
  /** The level a session asked for, set on each of its connections as it opens. */
  readonly logLevel?: () => LoggingLevel | null;
}

export interface ConnectOptions {
  timeoutMs: number;
  /** The longest one call may run, however often the upstream says it is still at it. */
  callMaxMs: number;
  capabilities: ClientCapabilities;
  /** The credentials sent: cut out of every failure's text. */
  secrets: readonly string[];
  listener?: UpstreamListener;
  /** The upstream's circuit breaker and cap on concurrent calls; every request passes it. */
  admission?: Admission;
  /** How idempotent requests are retried when the connection fails; never retried without. */
  retry?: RetryPolicy;
  /**
   * Whether to hear the upstream outside requests (its GET stream on 2025, a listen on
   * 2026-07-28): sessions and watches do; a one-off read or call does not need the extra stream.
   */
  listen?: boolean;
}

export interface RequestOptions {
  /** The caller giving up: the request is cancelled upstream. */
  signal?: AbortSignal;
  sink?: RequestSink;
  /** Stated in a 2026-07-28 request's envelope for this request, over the connection's own. */
  caller?: CallerMeta;
  /** Without it the request never times out (left to `signal`), for requests a person answers. */
  timeoutMs?: number;
  /**
   * A 2026-07-28 upstream may answer `resultType: "input_required"`: a caller that answers such
   * rounds gets the result unchanged; any other caller gets a JSON-RPC error that says the input
   * cannot be relayed.
   */
  allowInputRequired?: boolean;
}

/**
 * One upstream as every caller sees it, whatever era it speaks: a 2025 session (SessionConnection,
 * an `initialize` and a session) or a 2026-07-28 upstream (ModernConnection, no handshake and no
 * session: each request is its own exchange).
 */
export interface UpstreamConnection {
  readonly serverCapabilities: ServerCapabilities;
  readonly serverInfo: Implementation | undefined;
  readonly protocolVersion: string | undefined;
  /** Closed, closing, or lost: new work needs a new connection. */
  readonly closed: boolean;
  /** Resolves with the reason once the connection can no longer be used. */
  readonly lost: Promise<UpstreamFailure>;
  /**
   * Sends a request and resolves with its result. Throws an UpstreamFailure, or an
   * UpstreamRpcError when the upstream answered with a JSON-RPC error of its own.
   */
  request<T extends Result = Result>(
    method: string,
    params: Record<string, unknown> | undefined,
    options?: RequestOptions,
  ): Promise<T>;
  /**
   * 2026-07-28 only: the upstream task ids (Tasks extension) the connection's listen follows, all
   * of them (it is opened again with them); resolves with those the upstream acknowledged. Their
   * `notifications/tasks` go to the connection's listener.
   */
  followTasks?(taskIds: readonly string[]): Promise<readonly string[]>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Ends the connection once the requests in flight have finished. */
  close(): Promise<void>;
}

/**
 * Where a call to a 2025 upstream waits while its client is asked something (ParkedCalls), for a
 * caller that takes input rounds but cannot be asked mid-call: `exchange` makes the call with the
 * sink it is given; the answer is its result, or the first round of what the upstream asks.
 */
export interface CallParking {
  run(
    exchange: (sink: RequestSink, signal: AbortSignal) => Promise<Result>,
    sink: RequestSink,
    signal: AbortSignal | undefined,
    capabilities: ClientCapabilities,
  ): Promise<Result>;
}

/** How a connection is opened for its caller (UpstreamConnector.open). */
export interface OpenOptions {
  /** What Portico declares upstream (the downstream client's, narrowed); none by default. */
  capabilities?: ClientCapabilities;
  listener?: UpstreamListener;
  /** Whether to hear the upstream outside requests; one-off exchanges need not (default true). */
  listen?: boolean;
  /**
   * The person the connection acts for (the MCP caller, or who invokes a tool), whose own token
   * a per-user OAuth upstream gets (or a token-exchange upstream one exchanged for); absent for
   * Portico's own work (sync, health), which uses the gateway's connected account (or Portico's
   * own token from the token service).
   */
  actingFor?: ActingFor;
  /**
   * Whose authorization the connection carries, as `authorizationContext` names it for the target
   * and `actingFor`: what the upstream's discover says is kept per context, for the connections
   * opened later in the same one.
   */
  authorization: string;
  /**
   * The era the caller speaks, when it has one: a 2025 session is served by a 2025 upstream
   * session wherever the upstream also opens one (a dual-era server), so that what only that era
   * carries (server-to-client requests, resource subscriptions) passes through unchanged.
   */
  callerEra?: '2025';
  /** Where a 2025 session's calls wait while their client is asked (see CallParking). */
  parking?: CallParking;
}
