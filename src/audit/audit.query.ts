import { type DataSource, type SelectQueryBuilder } from 'typeorm';
import { type Principal } from '../auth/principal';
import { AuditEntry } from './audit-entry.entity';
import { AuditErrorCode, AuditException } from './audit.exception';
import { type AuditQueryDto } from './dto/audit-query.dto';

export type AuditFilters = Omit<AuditQueryDto, 'limit' | 'format' | 'cursor'>;

/**
 * Where a page ended: the last entry's id and its time as the database holds it, to the
 * microsecond (a JS Date holds milliseconds: entries of one millisecond written by SQL's `now()`
 * would end paging early on it).
 */
export interface Position {
  at: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

/**
 * Whether the text is a UTC instant the database holds: of years 1 to 9999, and a day that exists
 * (Date.parse takes February 30 as March 2, which the database refuses).
 */
function isInstant(text: string): boolean {
  if (!INSTANT.test(text) || text.startsWith('0000')) return false;
  const time = Date.parse(text);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text.slice(0, 10);
}

export function decodeCursor(cursor: string): Position {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!at || !isInstant(at) || !id || !UUID.test(id) || rest.length > 0)
    throw new AuditException(AuditErrorCode.BadCursor, 'The cursor is not one this API gave.');
  return { at, id };
}

/** An entry's time as the database holds it, in UTC to the microsecond; null once it is gone. */
export async function exactTimeOf(dataSource: DataSource, id: string): Promise<string | null> {
  const rows = await dataSource.query<{ at: string }[]>(
    `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
       FROM audit_entry WHERE id = $1`,
    [id],
  );
  return rows[0]?.at ?? null;
}

/**
 * The SQL condition on audit entries (`entry`, its table or alias) that a non-admin reads: those
 * of people in their teams (`teams`, a uuid[] parameter) and their own (`subject`), except what was
 * done on a virtual server of a team they are not in. A person in two teams acts on either's
 * servers, and what they did on one is that team's to read, not every team of theirs.
 */
export function readableBy(entry: string, teams: string, subject: string): string {
  return `((${entry}.team_ids && ${teams}::uuid[] OR ${entry}.subject = ${subject})
    AND NOT EXISTS (SELECT 1 FROM server WHERE server.id = ${entry}.server_id
      AND server.team_id IS NOT NULL AND server.team_id <> ALL(${teams}::uuid[])))`;
}

/**
 * The audit entries a principal may read, filtered, newest first: admins read all of them; an
 * operator reads those of people in their teams, and their own, except what was done on a virtual
 * server of a team they are not in.
 */
export function auditQuery(
  dataSource: DataSource,
  principal: Principal,
  filters: AuditFilters,
  after: Position | null,
): SelectQueryBuilder<AuditEntry> {
  const qb = dataSource
    .getRepository(AuditEntry)
    .createQueryBuilder('entry')
    .orderBy('entry.occurred_at', 'DESC')
    .addOrderBy('entry.id', 'DESC');
  if (principal.role !== 'admin')
    qb.andWhere(readableBy('entry', ':scopeTeamIds', ':scopeSubject'), {
      scopeTeamIds: [...principal.teamIds],
      scopeSubject: principal.subject,
    });
  if (filters.from) qb.andWhere('entry.occurred_at >= :from', { from: filters.from });
  if (filters.to) qb.andWhere('entry.occurred_at < :to', { to: filters.to });
  if (filters.user !== undefined) qb.andWhere('entry.username = :user', { user: filters.user });
  if (filters.server !== undefined)
    qb.andWhere('entry.server_id = :server', { server: filters.server });
  if (filters.gateway !== undefined)
    qb.andWhere('entry.gateway = :gateway', { gateway: filters.gateway });
  if (filters.tool !== undefined) qb.andWhere('entry.target = :tool', { tool: filters.tool });
  if (filters.task !== undefined) qb.andWhere('entry.task = :task', { task: filters.task });
  if (filters.action !== undefined)
    qb.andWhere('entry.action = :action', { action: filters.action });
  if (filters.outcome !== undefined)
    qb.andWhere('entry.outcome = :outcome', { outcome: filters.outcome });
  if (filters.kind !== undefined) qb.andWhere('entry.kind = :kind', { kind: filters.kind });
  if (after)
    qb.andWhere('(entry.occurred_at, entry.id) < (:afterAt::timestamptz, :afterId::uuid)', {
      afterAt: after.at,
      afterId: after.id,
    });
  return qb;
}
