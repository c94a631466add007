import { ApiProperty } from '@nestjs/swagger';
import { FINDING_SEVERITIES, type FindingSeverity, type QuarantineReason } from './definition-pin';

export const QUARANTINE_REASONS: readonly QuarantineReason[] = [
  'new',
  'changed',
  'finding',
  'renamed',
  'returned',
];

/** One of the scanner's findings on a definition; its text comes from untrusted upstream data. */
export class PinFindingDto {
  @ApiProperty({ description: 'The rule that matched.', example: 'hidden-instructions' })
  rule!: string;

  @ApiProperty({ description: 'How serious the finding is.', enum: FINDING_SEVERITIES })
  severity!: FindingSeverity;

  @ApiProperty({ description: 'Where in the definition, such as `description`.' })
  field!: string;

  @ApiProperty({ description: 'What the rule found.' })
  message!: string;

  @ApiProperty({ description: 'The matching text (untrusted upstream text).' })
  excerpt!: string;
}

export class PinQuarantineDto {
  @ApiProperty({
    description:
      "Why it is held back: 'new' (review mode, never approved), 'changed' (differs from its pin, also when it comes back after leaving the upstream), 'finding' (the scanner flagged it), 'renamed' (looks like a pinned entry that left, renamed with its description changed), 'returned' (came back under a name whose pin was forgotten for room).",
    enum: QUARANTINE_REASONS,
  })
  reason!: QuarantineReason;

  @ApiProperty({ description: 'Since when.', format: 'date-time' })
  since!: string;

  @ApiProperty({
    description:
      "The hash of the upstream's newer definition held aside while the approved one stays stored; null when the stored definition itself waits (a new or flagged entry).",
    nullable: true,
    type: String,
  })
  heldHash!: string | null;

  @ApiProperty({
    description:
      "For reason 'renamed': the upstream name (or URI template) of the pinned entry that left, which this one looks like; null otherwise.",
    nullable: true,
    type: String,
  })
  renamedFrom!: string | null;
}

/** The pin of a tool's, prompt's or resource template's definition. */
export class PinStateDto {
  @ApiProperty({
    description: 'Hash of the approved definition; null: not pinned.',
    nullable: true,
    type: String,
  })
  pinnedHash!: string | null;

  @ApiProperty({ description: 'Hash of the stored definition (sha256, hex).' })
  contentHash!: string;

  @ApiProperty({
    description:
      'Hash of a definition an operator rejected: syncs that bring it keep serving the pinned one.',
    nullable: true,
    type: String,
  })
  rejectedHash!: string | null;

  @ApiProperty({
    description:
      'Set while the entry is held back: not listed, not callable, not searchable, until approved.',
    nullable: true,
    type: PinQuarantineDto,
  })
  quarantine!: PinQuarantineDto | null;

  @ApiProperty({
    description: "The scanner's findings on the latest definition the upstream served.",
    type: [PinFindingDto],
  })
  findings!: PinFindingDto[];
}
