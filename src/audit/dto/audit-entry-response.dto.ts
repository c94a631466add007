import { type ApprovalRecord } from '../../approvals/approval-record';
import { ApiProperty } from '@nestjs/swagger';
import { type AuditEntry, type AuditKind, type AuditOutcome } from '../audit-entry.entity';
import { AUDIT_KINDS, AUDIT_OUTCOMES } from './audit-query.dto';

export class AuditEntryResponseDto {
  @ApiProperty({ description: 'Entry id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'When it happened.', format: 'date-time' })
  occurredAt!: string;

  @ApiProperty({ enum: AUDIT_KINDS, description: 'What kind of entry.' })
  kind!: AuditKind;

  @ApiProperty({ description: 'The MCP method, the route, `login`, `sso-login`, `token.create`…' })
  action!: string;

  @ApiProperty({ enum: AUDIT_OUTCOMES, description: 'The outcome.' })
  outcome!: AuditOutcome;

  @ApiProperty({ description: 'HTTP status or JSON-RPC error code.', type: Number, nullable: true })
  status!: number | null;

  @ApiProperty({ description: 'How long it took, in ms.', type: Number, nullable: true })
  durationMs!: number | null;

  @ApiProperty({ description: 'Subject of the principal.', type: String, nullable: true })
  subject!: string | null;

  @ApiProperty({ description: 'Username or token name.', type: String, nullable: true })
  username!: string | null;

  @ApiProperty({ description: 'The local user.', type: String, nullable: true })
  userId!: string | null;

  @ApiProperty({ description: 'The API token or OAuth grant.', type: String, nullable: true })
  tokenId!: string | null;

  @ApiProperty({ description: 'Teams of who acted.', type: [String] })
  teamIds!: string[];

  @ApiProperty({ description: 'The MCP client’s name.', type: String, nullable: true })
  clientName!: string | null;

  @ApiProperty({ description: 'Virtual server of an MCP operation.', type: String, nullable: true })
  serverId!: string | null;

  @ApiProperty({ description: 'Gateway that served it.', type: String, nullable: true })
  gateway!: string | null;

  @ApiProperty({ description: 'Tool, prompt, URI or record id.', type: String, nullable: true })
  target!: string | null;

  @ApiProperty({ description: 'SHA-256 of the arguments.', type: String, nullable: true })
  argumentsDigest!: string | null;

  @ApiProperty({
    description: 'The arguments without secrets (AUDIT_ARGUMENTS=full).',
    type: Object,
    nullable: true,
  })
  arguments!: object | null;

  @ApiProperty({ description: 'Why it failed.', type: String, nullable: true })
  detail!: string | null;

  @ApiProperty({
    description:
      'The approval a policy asked for before a tools/call went upstream: the policy, the outcome (asked, approved, declined, cancelled, remembered, unavailable, unanswered, overruled, replayed), who answered, when, and what they were shown.',
    type: Object,
    nullable: true,
  })
  approval!: ApprovalRecord | null;

  @ApiProperty({
    description: 'The task (Tasks extension): the same on every entry of one task.',
    type: String,
    nullable: true,
  })
  task!: string | null;

  @ApiProperty({
    description:
      'Set on a call made in the admin playground: who made it there, as the user this entry names.',
    type: String,
    nullable: true,
  })
  actedBy!: string | null;

  @ApiProperty({ description: 'The HTTP request id.', type: String, nullable: true })
  requestId!: string | null;

  @ApiProperty({ description: 'The trace id, with tracing on.', type: String, nullable: true })
  traceId!: string | null;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryResponseDto], description: 'Newest first.' })
  items!: AuditEntryResponseDto[];

  @ApiProperty({
    description: 'Pass as `cursor` for the next (older) page; null at the end.',
    type: String,
    nullable: true,
  })
  nextCursor!: string | null;
}

export function toResponse(entry: AuditEntry): AuditEntryResponseDto {
  return {
    id: entry.id,
    occurredAt: entry.occurredAt.toISOString(),
    kind: entry.kind,
    action: entry.action,
    outcome: entry.outcome,
    status: entry.status,
    durationMs: entry.durationMs,
    subject: entry.subject,
    username: entry.username,
    userId: entry.userId,
    tokenId: entry.tokenId,
    teamIds: entry.teamIds,
    clientName: entry.clientName,
    serverId: entry.serverId,
    gateway: entry.gateway,
    target: entry.target,
    argumentsDigest: entry.argumentsDigest,
    arguments: entry.arguments,
    detail: entry.detail,
    approval: entry.approval,
    task: entry.task,
    actedBy: entry.actedBy,
    requestId: entry.requestId,
    traceId: entry.traceId,
  };
}
