import { QueryFailedError } from 'typeorm';
import { storableJsonText } from '../common/untrusted-text';
import { type AuditEntry } from './audit-entry.entity';

/**
 * The audit entries of one write as the database can store them, whatever the records carried.
 * A client, a login form or an upstream chooses much of what an entry says (a username, a
 * client's name, a tool name, arguments, an error's message), and one entry the database refused
 * would hold back every entry behind it. So each text is cut to its column (a cut may split a
 * surrogate pair), and in the JSON of the batch what PostgreSQL refuses in text and JSON alike
 * goes: a NUL character is removed and an unpaired surrogate becomes U+FFFD, in keys as in values.
 * A status out of the integer column's range is dropped.
 */
export function storableBatch(entries: readonly AuditEntry[]): string {
  return storableJsonText(JSON.stringify(entries.map(storableRow)));
}

/** The text columns whose values can come from outside, by their length in the table. */
const TEXT_LIMITS = {
  action: 200,
  subject: 128,
  username: 255,
  clientName: 255,
  gateway: 255,
  target: 1024,
  detail: 500,
  task: 32,
  actedBy: 255,
} satisfies Partial<Record<keyof AuditEntry, number>>;

const INTEGER_MAX = 2 ** 31 - 1;

function cut<K extends keyof typeof TEXT_LIMITS>(entry: AuditEntry, key: K): string | null {
  const text = entry[key];
  return text === null || text.length <= TEXT_LIMITS[key] ? text : text.slice(0, TEXT_LIMITS[key]);
}

function storableRow(entry: AuditEntry): Record<string, unknown> {
  const { status } = entry;
  return {
    id: entry.id,
    occurred_at: entry.occurredAt.toISOString(),
    kind: entry.kind,
    action: cut(entry, 'action'),
    outcome: entry.outcome,
    status:
      status !== null && Number.isInteger(status) && Math.abs(status) <= INTEGER_MAX
        ? status
        : null,
    duration_ms: entry.durationMs,
    subject: cut(entry, 'subject'),
    username: cut(entry, 'username'),
    user_id: entry.userId,
    token_id: entry.tokenId,
    team_ids: entry.teamIds,
    client_name: cut(entry, 'clientName'),
    server_id: entry.serverId,
    gateway: cut(entry, 'gateway'),
    target: cut(entry, 'target'),
    arguments_digest: entry.argumentsDigest,
    arguments: entry.arguments,
    detail: cut(entry, 'detail'),
    approval: entry.approval,
    task: cut(entry, 'task'),
    acted_by: cut(entry, 'actedBy'),
    request_id: entry.requestId,
    trace_id: entry.traceId,
    replica: entry.replica,
  };
}

/**
 * Whether the database refused what a statement carried (SQLSTATE class 22, data exceptions, or
 * 23, integrity violations, but for a unique key, which a retried batch skips), rather than the
 * statement failing for want of a database.
 */
export function refusedData(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: unknown }).code;
  return typeof code === 'string' && /^2[23]/.test(code) && code !== '23505';
}
