import {
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type RequestId,
} from '@modelcontextprotocol/server';
import { type ApprovalRecord } from '../../approvals/approval-record';
import { type Principal } from '../../auth/principal';
import { type Affinity, type RequestSink } from '../../upstream/upstream-connection';
import { type McpScope } from './mcp-scope';

/** The one revision of the stateless era Portico serves downstream. */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];

/** What a request says of its client: from its own `_meta` (2026-07-28), or its session (2025). */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  /** Self-reported, for the audit trail only: it never decides anything. */
  clientInfo: Implementation | null;
  /** Below it no `notifications/message` reaches the client; null: none at all. */
  logLevel: LoggingLevel | null;
  /** W3C trace context the client sent (`_meta.traceparent`), passed on upstream as it came. */
  traceparent: string | null;
}

/**
 * Who holds a conversation's tool-search promotions: a 2025 session, or (the 2026-07-28 wire has
 * no session) the principal in the scope it reaches.
 */
export type RequestOwner =
  { kind: 'session'; sessionId: string } | { kind: 'principal'; scope: McpScope; subject: string };

/**
 * What a request continuing an input round carries besides its params: the round's sealed state
 * and the client's answers. The 2026-07-28 wire takes them out of the request's params; the 2025
 * adapter, whose clients know no rounds, sets them when it answers a round on its client's behalf
 * (see SessionRequests). A request with neither starts no round of its own.
 */
export interface Resume {
  requestState?: unknown;
  inputResponses?: unknown;
}

/** The methods the core serves to clients of both eras (each era's entry adds its own). */
export const BOTH_ERAS: ReadonlySet<string> = new Set([
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  // The Skills extension, answered where a member upstream brings it.
  'skills/list',
  'skills/get',
  'resources/directory/read',
]);

/** The methods whose requests take input rounds, and so carry a `resume`. */
export const ROUND_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

/**
 * One client request as the core serves it, whichever era it came in, as data: the entry of its
 * era (the 2026-07-28 wire, or the 2025 session adapter) builds it, and the core reads nothing
 * else about the client.
 */
export interface McpRequest {
  readonly id: RequestId;
  readonly method: string;
  /** Without `requestState` and `inputResponses`: those are `resume`'s. */
  readonly params: Record<string, unknown> | undefined;
  /** Null unless the request continues an input round. */
  readonly resume: Resume | null;
  readonly scope: McpScope;
  readonly principal: Principal;
  readonly meta: RequestMeta;
  /** Whose tool-search promotions apply; null where none are kept (a search promotes nothing). */
  readonly owner: RequestOwner | null;
  /** Whose upstream connections it uses: its session's own, or the shared ones. */
  readonly affinity: Affinity;
  /** The 2025 session that sent it, for logs and spans; null on the 2026-07-28 wire. */
  readonly sessionId: string | null;
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /**
   * Where what goes out about the request goes: its notifications (progress, logs) on its own
   * stream; and, from a client that can be asked mid-request (a 2025 session), the requests an
   * upstream makes of it during the call (sampling, elicitation, roots), passed through as they
   * came, its answer or refusal going back. Without `ask`, such a request becomes an input round.
   */
  readonly sink: RequestSink;
  /**
   * A call made in the admin playground: the username of who made it there, as `principal`
   * (themselves, or a user an admin acts as). Absent for every client request.
   */
  readonly playgroundBy?: string;
}

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
