import { getMetadataArgsStorage } from 'typeorm';
import { storableJsonText } from '../common/untrusted-text';
import { AuditEntry } from './audit-entry.entity';

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

/** The length of each `varchar` column of an entry, as the entity declares it. */
const TEXT_LIMITS: ReadonlyMap<string, number> = new Map(
  getMetadataArgsStorage()
    .columns.filter(({ target, options }) => target === AuditEntry && options.type === 'varchar')
    .map(({ propertyName, options }) => [propertyName, Number(options.length)]),
);

const INTEGER_MAX = 2 ** 31 - 1;

/** The entry's text at `key`, cut to its column. */
function cut(entry: AuditEntry, key: keyof AuditEntry): unknown {
  const text = entry[key];
  const limit = TEXT_LIMITS.get(key) ?? Infinity;
  return typeof text === 'string' && text.length > limit ? text.slice(0, limit) : text;
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
