import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type ReportedFinding } from '../../sync-report/sync-report';
import {
  REPORT_ENTRIES,
  REPORT_TEXT,
  type ConsolidationDrift,
  type SyncConflict,
  type SyncListReport,
  type SyncReport,
  type SyncWarning,
} from '../../sync-report/sync-report';

export class SyncConflictDto implements SyncConflict {
  @ApiProperty({ description: 'The upstream (original) name, or URI.' })
  name!: string;

  @ApiProperty({ description: 'Why the entry was not stored.' })
  reason!: string;
}

export class SyncWarningDto implements SyncWarning {
  @ApiProperty({ description: 'The upstream (original) name, or URI.' })
  name!: string;

  @ApiProperty({ description: 'What was changed on the way in, such as a truncated description.' })
  reason!: string;
}

export class SyncFindingDto implements ReportedFinding {
  @ApiProperty({ description: 'The upstream name (URI template for templates).' })
  name!: string;

  @ApiProperty({ description: 'The scanner rule that matched.' })
  rule!: string;

  @ApiProperty({
    description: 'How strongly it suggests an attack.',
    enum: ['high', 'medium', 'low'],
  })
  severity!: ReportedFinding['severity'];

  @ApiProperty({ description: 'Where in the definition, such as `description`.' })
  field!: string;
}

export class ConsolidationDriftDto implements ConsolidationDrift {
  @ApiProperty({ description: 'The upstream name of the member tool whose schema drifted.' })
  name!: string;

  @ApiProperty({ description: 'The consolidated tool it is a member of.' })
  consolidatedTool!: string;

  @ApiProperty({ description: 'The target label the member answers to; withheld while drifted.' })
  target!: string;

  @ApiProperty({ description: "Where the member's input schema differs from the shared one." })
  difference!: string;
}

/**
 * What one sync changed in one list. Its lists hold upstream names: tool names at the report's
 * top level; prompt names, resource URIs, URI templates and skill URIs in their sections.
 */
export class SyncListReportDto implements SyncListReport {
  @ApiProperty({ description: 'Upstream names of entries added.', type: [String] })
  added!: string[];

  @ApiProperty({
    description: 'Upstream names of entries whose definition changed.',
    type: [String],
  })
  updated!: string[];

  @ApiProperty({ description: 'Upstream names of entries removed.', type: [String] })
  removed!: string[];

  @ApiProperty({ description: 'Number of entries that did not change.' })
  unchanged!: number;

  @ApiProperty({
    description: 'Upstream entries that were not stored, with the reason.',
    type: [SyncConflictDto],
  })
  conflicts!: SyncConflictDto[];

  @ApiPropertyOptional({
    description: 'Entries stored with a change, such as a truncated description.',
    type: [SyncWarningDto],
  })
  warnings?: SyncWarningDto[];

  @ApiPropertyOptional({
    description:
      'Upstream names this sync held back from clients (quarantined): a change to a pinned definition, a new entry under review, or a definition the scanner flagged.',
    type: [String],
  })
  quarantined?: string[];

  @ApiPropertyOptional({
    description: 'Upstream names this sync let through again: the upstream went back to the pin.',
    type: [String],
  })
  released?: string[];

  @ApiPropertyOptional({
    description: 'The scanner’s findings on the definitions this sync brought.',
    type: [SyncFindingDto],
  })
  findings?: SyncFindingDto[];

  @ApiPropertyOptional({
    description: `How many entries each list left out: a stored report keeps the first ${REPORT_ENTRIES} of each list, by name, with names and reasons cut at ${REPORT_TEXT} characters. Absent when nothing was left out.`,
    example: { added: 9900 },
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  omitted?: SyncListReport['omitted'];
}

/** The tools at the top level; the other lists in sections, absent when the upstream offers none. */
export class SyncReportDto extends SyncListReportDto implements SyncReport {
  @ApiPropertyOptional({
    description:
      "Consolidated tools' members of this gateway whose input schemas no longer match the shared schema; each such target is withheld from clients until it matches again.",
    type: [ConsolidationDriftDto],
  })
  consolidationDrift?: ConsolidationDriftDto[];

  @ApiPropertyOptional({ description: 'The prompts, by upstream name.', type: SyncListReportDto })
  prompts?: SyncListReportDto;

  @ApiPropertyOptional({ description: 'The resources, by upstream URI.', type: SyncListReportDto })
  resources?: SyncListReportDto;

  @ApiPropertyOptional({
    description: 'The resource templates, by upstream URI template.',
    type: SyncListReportDto,
  })
  resourceTemplates?: SyncListReportDto;

  @ApiPropertyOptional({
    description:
      'The skills (Skills extension), by upstream skill URI; `quarantined` lists those this sync held until approved (`POST /api/v1/skills/{id}/approve`).',
    type: SyncListReportDto,
  })
  skills?: SyncListReportDto;
}
