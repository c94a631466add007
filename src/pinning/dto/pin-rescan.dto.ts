import { ApiProperty } from '@nestjs/swagger';
import { type QuarantineReason } from '../../pin-state/definition-pin';
import { PIN_KINDS, type PinKind } from '../pinned-kinds';
import { QUARANTINE_REASONS } from '../../pin-state/pin-state.dto';

/** An entry a rescan held back or let through. */
export class RescanEntryDto {
  @ApiProperty({ description: 'What the entry is.', enum: PIN_KINDS })
  kind!: PinKind;

  @ApiProperty({ description: 'The tool’s, prompt’s or resource template’s id.', format: 'uuid' })
  id!: string;

  @ApiProperty({
    description: 'Virtual name (tools, prompts), or prefixed URI template (resource templates).',
  })
  name!: string;

  @ApiProperty({
    description: 'Why it is held back now; null for an entry let through.',
    enum: QUARANTINE_REASONS,
    nullable: true,
    type: String,
  })
  reason!: QuarantineReason | null;
}

/** What scanning one gateway's definitions again did. */
export class RescanResultDto {
  @ApiProperty({ description: 'Id of the gateway.', format: 'uuid' })
  gatewayId!: string;

  @ApiProperty({ description: 'Slug of the gateway.' })
  gatewaySlug!: string;

  @ApiProperty({
    description:
      'Definitions scanned: every tool, prompt and resource template (a held change rather than the stored definition).',
  })
  scanned!: number;

  @ApiProperty({ description: 'How many of them the scanner found something in.' })
  withFindings!: number;

  @ApiProperty({
    description:
      'Entries held back by this rescan: the gateway’s finding threshold holds what was found.',
    type: [RescanEntryDto],
  })
  quarantined!: RescanEntryDto[];

  @ApiProperty({
    description: 'Entries held only for a finding the threshold no longer counts, now served.',
    type: [RescanEntryDto],
  })
  released!: RescanEntryDto[];
}

export class RescanPageDto {
  @ApiProperty({ description: 'One result per gateway, by name.', type: [RescanResultDto] })
  items!: RescanResultDto[];

  @ApiProperty({ description: 'Number of gateways scanned.' })
  total!: number;
}
