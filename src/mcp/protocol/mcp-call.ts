import {
  type ClientCapabilities,
  type Implementation,
  type JSONRPCNotification,
  type LoggingLevel,
  type RequestId,
  type Result,
} from '@modelcontextprotocol/server';
import { type ApprovalRecord } from '../../approvals/approval-record';
import { type Principal } from '../../auth/principal';
import { type UpstreamAsk, type UpstreamConnection } from '../../upstream/upstream-connection';
import { type ListKind } from '../directory/scope-directory';
import { type McpScope } from './mcp-scope';
import { type PromotionOwner } from '../search/promotion-owner';

/** Which wire a request came on: a 2025 session, or the stateless 2026-07-28 revision. */
export type McpEra = 'legacy' | 'modern';

/** What serving one upstream operation found out, for its metrics and its audit entry. */
export interface Served {
  /** The gateway's slug; empty until the operation is resolved. */
  gateway: string;
  /** The approval a policy asked for before a tool call went upstream. */
  approval?: ApprovalRecord;
}

/** The gateway a request is forwarded to, as the client's error messages name it. */
export interface UpstreamRef {
  gatewayId: string;
  gatewaySlug: string;
}

/**
 * The upstreams one request may use, through the upstream client: a 2025 session's own
 * connections, or for a request without a session the shared ones (see Affinity). What the
 * upstream exchange threw comes out as the client's JSON-RPC error.
 */
export interface UpstreamCalls {
  call<T>(ref: UpstreamRef, work: (connection: UpstreamConnection) => Promise<T>): Promise<T>;
}

/**
 * One client request as the core serves it, whichever era it came in: who asks, where, what the
 * client can do, and where what happens during the request goes. The 2025 session adapter builds
 * it from the session row; the modern endpoint from the request's own `_meta` envelope. The core
 * (router, calls, guard, search, apps) reads nothing else about the client.
 */
export interface McpCall {
  readonly id: RequestId;
  readonly scope: McpScope;
  readonly principal: Principal;
  readonly era: McpEra;
  readonly protocolVersion: string;
  /** Per request on the modern wire; from `initialize` on a 2025 session. */
  readonly clientCapabilities: ClientCapabilities;
  /** Self-reported, for the audit trail only: it never decides anything. */
  readonly clientInfo: Implementation | null;
  /** Below it no `notifications/message` reaches the client; null on the modern wire means none at all. */
  readonly logLevel: LoggingLevel | null;
  /** W3C trace context the client sent (`_meta.traceparent`), passed on upstream as it came. */
  readonly traceparent: string | null;
  /**
   * Whose tool-search promotions apply: the 2025 session, or on the modern wire (no session) the
   * principal in its scope. Null where none are kept (REST): a search promotes nothing.
   */
  readonly owner: PromotionOwner | null;
  /** The 2025 session that sent it, for logs and spans; null on the modern wire. */
  readonly sessionId: string | null;
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /** The upstreams this request may use. */
  readonly upstreams: UpstreamCalls;
  /** A notification about this request, on its own stream (progress, logs, list changes). */
  notify(notification: JSONRPCNotification): void;
  /**
   * A request of an upstream's for the client (sampling, elicitation, roots), answered on the
   * 2025 wire; rejects on the modern wire, which has no server-to-client requests.
   */
  ask(request: UpstreamAsk): Promise<Result>;
  /** The request listed a list at this version (a 2025 session hears of later changes). */
  sawList(kind: ListKind, version: string): void;
}
