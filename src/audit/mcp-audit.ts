import { hash } from 'node:crypto';
import { type JSONRPCRequest, type JSONRPCResponse } from '@modelcontextprotocol/server';
import { type ApprovalRecord } from '../approvals/approval-record';
import { type Principal } from '../auth/principal';
import { canonicalJson } from '../common/canonical-json';
import { rewriteJson } from '../common/json-value';
import { type AuditArguments } from '../config/slices/audit.settings';
import { type AuditOutcome } from './audit-entry.entity';
import { actor, type AuditRecord } from './audit-trail.service';

/** The MCP methods that reach an upstream, and so go into the audit trail. */
export const AUDITED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'resources/read',
  'prompts/get',
  'completion/complete',
  // The Tasks extension's calls reach the upstream that holds the task.
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  // 2025-11-25's, which the session adapter translates (it waits for the task upstream).
  'tasks/result',
  'skills/get',
  'resources/directory/read',
]);

const DETAIL_LIMIT = 500;

/** Field names whose values are never kept, whatever AUDIT_ARGUMENTS says. */
const SECRET_NAME =
  /pass(word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|credential|cookie|private[-_]?key|^key$/i;

const REDACTED = '[redacted]';

/** `value` with the values of secret-named fields replaced, at every depth. */
export function withoutSecrets(value: unknown): unknown {
  return rewriteJson(value, (member, key) =>
    key !== undefined && SECRET_NAME.test(key) ? REDACTED : member,
  );
}

/**
 * What the trail keeps of some arguments: nothing, their digest, or the digest and the arguments
 * without their secret-named fields. The digest is of the arguments as sent, so that two calls
 * with the same arguments can be matched without keeping them.
 */
export function auditedArguments(
  args: unknown,
  kept: AuditArguments,
): { argumentsDigest: string | null; arguments: object | null } {
  if (kept === 'none' || args === undefined) return { argumentsDigest: null, arguments: null };
  const argumentsDigest = hash('sha256', canonicalJson(args), 'hex');
  if (kept !== 'full') return { argumentsDigest, arguments: null };
  const stored = withoutSecrets(args);
  return { argumentsDigest, arguments: typeof stored === 'object' ? stored : { value: stored } };
}

/** What an MCP operation names: a tool or prompt, a resource URI, a completion's ref. */
function targetOf(request: JSONRPCRequest): string | null {
  const params = (request.params ?? {}) as {
    name?: unknown;
    uri?: unknown;
    ref?: { name?: unknown; uri?: unknown };
  };
  const target = params.name ?? params.uri ?? params.ref?.name ?? params.ref?.uri;
  return typeof target === 'string' ? target.slice(0, 1024) : null;
}

function argumentsOf(request: JSONRPCRequest): unknown {
  const params = (request.params ?? {}) as { arguments?: unknown; argument?: unknown };
  return request.method === 'completion/complete' ? params.argument : params.arguments;
}

export function mcpOutcome(answer: JSONRPCResponse): AuditOutcome {
  if ('error' in answer) return 'error';
  const { isError, resultType } = answer.result as { isError?: unknown; resultType?: unknown };
  if (resultType === 'input_required') return 'input_required';
  return isError === true ? 'tool_error' : 'ok';
}

/** The audit entry of one MCP operation. */
export function mcpAuditRecord(
  request: JSONRPCRequest,
  answer: JSONRPCResponse,
  context: {
    principal: Principal;
    serverId: string | null;
    clientName: string | null;
    gateway: string;
    approval: ApprovalRecord | null;
    durationMs: number;
    kept: AuditArguments;
    /** The task the operation made or is about (the Tasks extension). */
    task?: string | null;
    /** What the operation names when its request does not (a task's tool). */
    target?: string | null;
    /** Who made the call in the admin playground, as `principal`. */
    actedBy?: string | null;
  },
): AuditRecord {
  const error = 'error' in answer ? (answer.error as { code: number; message: string }) : null;
  return {
    kind: 'mcp',
    action: request.method,
    outcome: mcpOutcome(answer),
    status: error?.code ?? null,
    durationMs: context.durationMs,
    ...actor(context.principal),
    clientName: context.clientName?.slice(0, 255) ?? null,
    serverId: context.serverId,
    gateway: context.gateway || null,
    target: targetOf(request) ?? context.target ?? null,
    ...auditedArguments(argumentsOf(request), context.kept),
    detail: error ? error.message.slice(0, DETAIL_LIMIT) : null,
    approval: context.approval,
    task: context.task ?? null,
    actedBy: context.actedBy ?? null,
  };
}
