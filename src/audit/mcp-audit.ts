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
  /pass(word|phrase)?|passwd|secret|token|api[-_]?key|authori[sz]ation|credential|cookie|private[-_]?key|session[-_]?id/i;
/** Words of a field name (`ssh_key`, `accessKey`, `db-pwd`) that make it secret too. */
const SECRET_WORDS: ReadonlySet<string> = new Set(
  'key pwd auth bearer jwt otp totp cred creds signature salt pin cvv ssn'.split(' '),
);
/** String values that carry a credential whatever their field: an Authorization header's. */
const SECRET_VALUE = /^\s*(bearer|basic|digest|token)\s+\S/i;
/** A URL's or DSN's `user:password@`. */
const USERINFO = /(\/\/)[^/?#@\s]*@/g;

const REDACTED = '[redacted]';

/** Whether a field's value is kept from the trail: by its name, or a word of it for a plain value. */
function secretField(key: string, value: unknown): boolean {
  if (SECRET_NAME.test(key)) return true;
  // `auth: {type, password}` keeps its type; `auth: "Basic …"` is gone.
  if (value !== null && typeof value === 'object') return false;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SECRET_WORDS.has(word));
}

/**
 * `value` with the values of secret-named fields replaced, at every depth, and credentials in
 * string values (an Authorization header's value, a URL's `user:password@`) wherever they are.
 */
export function withoutSecrets(value: unknown): unknown {
  return rewriteJson(value, (member, key) => {
    if (key !== undefined && secretField(key, member)) return REDACTED;
    if (typeof member !== 'string') return member;
    if (SECRET_VALUE.test(member)) return REDACTED;
    return member.includes('@') ? member.replace(USERINFO, `$1${REDACTED}@`) : member;
  });
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
