import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';
import { Optional } from '../../common/validation';
import { type QuarantineReason } from '../../pin-state/definition-pin';
import { PIN_KINDS, type PinKind } from '../pinned-kinds';
import { QUARANTINE_REASONS } from '../../pin-state/pin-state.dto';

export class QuarantineQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only entries of this gateway.', format: 'uuid' })
  @Optional()
  @IsUUID()
  gatewayId?: string;

  @ApiPropertyOptional({ description: 'Only entries of this kind.', enum: PIN_KINDS })
  @Optional()
  @IsIn(PIN_KINDS)
  kind?: PinKind;
}

/** One entry held back from clients until an operator approves (or rejects) its definition. */
export class QuarantineItemDto {
  @ApiProperty({ description: 'What the entry is.', enum: PIN_KINDS })
  kind!: PinKind;

  @ApiProperty({ description: 'The tool’s, prompt’s or resource template’s id.', format: 'uuid' })
  id!: string;

  @ApiProperty({
    description: 'Virtual name (tools, prompts), or prefixed URI template (resource templates).',
  })
  name!: string;

  @ApiProperty({ description: 'Id of its gateway.', format: 'uuid' })
  gatewayId!: string;

  @ApiProperty({ description: 'Slug of its gateway.' })
  gatewaySlug!: string;

  @ApiProperty({ description: 'Why it is held back.', enum: QUARANTINE_REASONS })
  reason!: QuarantineReason;

  @ApiProperty({ description: 'Since when.', format: 'date-time' })
  since!: string;

  @ApiProperty({
    description:
      'Whether a changed definition is held aside (the approved one stays stored); false: the stored definition itself waits.',
  })
  changed!: boolean;

  @ApiProperty({ description: 'The hash an approval or rejection names.' })
  hash!: string;

  @ApiProperty({ description: "Number of the scanner's findings on it." })
  findings!: number;
}

export class QuarantinePageDto {
  @ApiProperty({ description: 'This page, the longest held first.', type: [QuarantineItemDto] })
  items!: QuarantineItemDto[];

  @ApiProperty({ description: 'Number of held entries in all pages.' })
  total!: number;
}
