import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { type ApprovalRecord } from '../approvals/approval-record';

/** What an entry records: an MCP operation, a change through REST or the pages, a sign-in, a token. */
export type AuditKind = 'mcp' | 'change' | 'login' | 'token';

/**
 * - `ok`: done;
 * - `tool_error`: the upstream tool answered with `isError: true`;
 * - `error`: a JSON-RPC error, or an HTTP status of 400 or more;
 * - `denied`: refused for want of credentials or rights (401, 403, a failed sign-in);
 * - `input_required`: an MCP request answered with an input round (the upstream's, or Portico's
 *   own asking a person's approval); the retry that answers it has an entry of its own.
 */
export type AuditOutcome = 'ok' | 'tool_error' | 'error' | 'denied' | 'input_required';

/**
 * One entry of the append-only audit trail. Entries are only inserted (with ids made by the
 * replica, so a retried batch adds nothing twice) and deleted by the retention prune; never
 * updated.
 */
@Entity({ name: 'audit_entry' })
@Index('audit_entry_occurred_idx', ['occurredAt', 'id'])
@Index('audit_entry_target_idx', ['target', 'occurredAt'])
@Index('audit_entry_username_idx', ['username', 'occurredAt'])
@Index('audit_entry_task_idx', ['task', 'occurredAt'], { where: '"task" IS NOT NULL' })
export class AuditEntry {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'audit_entry_pk' })
  id!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ type: 'varchar', length: 16 })
  kind!: AuditKind;

  /** The MCP method (`tools/call`), the route (`PATCH /api/v1/gateways/:id`), `login`, ... */
  @Column({ type: 'varchar', length: 200 })
  action!: string;

  @Column({ type: 'varchar', length: 16 })
  outcome!: AuditOutcome;

  /** The HTTP status, or the JSON-RPC error code. */
  @Column({ type: 'integer', nullable: true })
  status!: number | null;

  @Column({ name: 'duration_ms', type: 'double precision', nullable: true })
  durationMs!: number | null;

  /** The principal's subject; null for a sign-in that failed before anyone was known. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  subject!: string | null;

  /** A username or a token's name, as typed at sign-in for a failed one. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  username!: string | null;

  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @Column({ name: 'token_id', type: 'uuid', nullable: true })
  tokenId!: string | null;

  /** The teams of who acted, then: an operator reads the entries of their teams. */
  @Column({ name: 'team_ids', type: 'uuid', array: true, default: () => "'{}'" })
  teamIds!: string[];

  /** The MCP client's name from its initialize (`clientInfo.name`). */
  @Column({ name: 'client_name', type: 'varchar', length: 255, nullable: true })
  clientName!: string | null;

  /** The virtual server of an MCP operation; null for `/mcp`. */
  @Column({ name: 'server_id', type: 'uuid', nullable: true })
  serverId!: string | null;

  /** The slug of the gateway that served an MCP operation. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  gateway!: string | null;

  /** The tool, prompt or resource URI of an MCP operation; the record id of a change. */
  @Column({ type: 'varchar', length: 1024, nullable: true })
  target!: string | null;

  /** SHA-256 of the canonical JSON of the arguments (AUDIT_ARGUMENTS=digest or full). */
  @Column({ name: 'arguments_digest', type: 'char', length: 64, nullable: true })
  argumentsDigest!: string | null;

  /** The arguments with secret-named fields cut out (AUDIT_ARGUMENTS=full only). */
  @Column({ type: 'jsonb', nullable: true })
  arguments!: object | null;

  /** A short reason for a failure, with credentials cut out. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  detail!: string | null;

  /** The approval a policy asked for before the call went upstream (tools/call only). */
  @Column({ type: 'jsonb', nullable: true })
  approval!: ApprovalRecord | null;

  /**
   * The task of a Tasks-extension operation (the tools/call that made it and each tasks/* call
   * of it), the same reference on every entry of one task; never the upstream's task id.
   */
  @Column({ type: 'varchar', length: 32, nullable: true })
  task!: string | null;

  /**
   * Set on a call made in the admin playground: the username of who made it there, as the user
   * the entry names (themselves, or another user an admin acted as).
   */
  @Column({ name: 'acted_by', type: 'varchar', length: 255, nullable: true })
  actedBy!: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 64, nullable: true })
  requestId!: string | null;

  @Column({ name: 'trace_id', type: 'char', length: 32, nullable: true })
  traceId!: string | null;

  @Column({ type: 'varchar', length: 64 })
  replica!: string;
}
