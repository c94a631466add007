import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDate,
  IsIn,
  IsInt,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxDate,
  MaxLength,
  Min,
  MinDate,
} from 'class-validator';
import { Optional } from '../../common/validation';
import { type AuditKind, type AuditOutcome } from '../audit-entry.entity';

export const AUDIT_OUTCOMES: readonly AuditOutcome[] = [
  'ok',
  'tool_error',
  'error',
  'denied',
  'input_required',
];
export const AUDIT_KINDS: readonly AuditKind[] = ['mcp', 'change', 'login', 'token'];
export const AUDIT_FORMATS = ['json', 'ndjson', 'csv'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];
export const MAX_AUDIT_PAGE = 1000;

/** The times a filter may name: years 1 to 9999, which the database's timestamps all hold. */
const EARLIEST = new Date('0001-01-01T00:00:00Z');
const LATEST = new Date('9999-12-31T23:59:59.999Z');

/** Filters of the audit trail; all optional, all combined with AND. */
export class AuditQueryDto {
  @ApiPropertyOptional({ description: 'Entries at or after this time (ISO 8601).' })
  @Optional()
  @Type(() => Date)
  @IsDate()
  @MinDate(EARLIEST)
  @MaxDate(LATEST)
  from?: Date;

  @ApiPropertyOptional({ description: 'Entries before this time (ISO 8601).' })
  @Optional()
  @Type(() => Date)
  @IsDate()
  @MinDate(EARLIEST)
  @MaxDate(LATEST)
  to?: Date;

  @ApiPropertyOptional({
    description: 'Who acted: a username, exactly (an API token acts as its owner).',
  })
  @Optional()
  @IsString()
  @MaxLength(255)
  user?: string;

  @ApiPropertyOptional({ description: 'The virtual server of MCP operations (its id).' })
  @Optional()
  @IsUUID()
  server?: string;

  @ApiPropertyOptional({ description: 'The slug of the gateway that served MCP operations.' })
  @Optional()
  @IsString()
  @MaxLength(255)
  gateway?: string;

  @ApiPropertyOptional({
    description:
      'The tool, prompt or resource URI of MCP operations (as the client named it), or the record id of a change.',
  })
  @Optional()
  @IsString()
  @MaxLength(1024)
  tool?: string;

  @ApiPropertyOptional({
    description:
      'The task of Tasks-extension operations: every entry of one task carries the same reference.',
  })
  @Optional()
  @IsString()
  @MaxLength(32)
  task?: string;

  @ApiPropertyOptional({ description: 'The method or route, e.g. `tools/call`.' })
  @Optional()
  @IsString()
  @MaxLength(200)
  action?: string;

  @ApiPropertyOptional({ enum: AUDIT_OUTCOMES, description: 'The outcome.' })
  @Optional()
  @IsIn(AUDIT_OUTCOMES)
  outcome?: AuditOutcome;

  @ApiPropertyOptional({ enum: AUDIT_KINDS, description: 'What kind of entry.' })
  @Optional()
  @IsIn(AUDIT_KINDS)
  kind?: AuditKind;

  @ApiPropertyOptional({
    description: 'Where the previous page ended: its `nextCursor`.',
  })
  @Optional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/)
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Page size (JSON only; exports stream every matching entry).',
    minimum: 1,
    maximum: MAX_AUDIT_PAGE,
    default: 100,
  })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_AUDIT_PAGE)
  limit: number = 100;

  @ApiPropertyOptional({
    enum: AUDIT_FORMATS,
    description: '`json` (a page), or an export of every matching entry: `ndjson` or `csv`.',
    default: 'json',
  })
  @Optional()
  @IsIn(AUDIT_FORMATS)
  format: AuditFormat = 'json';
}
