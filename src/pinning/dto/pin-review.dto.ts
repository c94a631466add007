import { ApiProperty } from '@nestjs/swagger';
import { PinStateDto } from '../../pin-state/pin-state.dto';

/** What an operator compares before approving: the stored definition and the held one. */
export class PinReviewDto {
  @ApiProperty({ description: 'The entry’s pin.', type: PinStateDto })
  pin!: PinStateDto;

  @ApiProperty({
    description:
      'The stored definition, as the upstream gave it: the approved one while a change is held aside, otherwise the one that waits (or is served).',
    type: 'object',
    additionalProperties: true,
  })
  stored!: Record<string, unknown>;

  @ApiProperty({
    description: "The upstream's newer definition, held aside until approved; null when none.",
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  held!: Record<string, unknown> | null;

  @ApiProperty({
    description:
      "For a suspected rename (reason 'renamed'): the pinned definition of the entry that left, which this one looks like, while Portico still remembers it; null otherwise.",
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  renamedFrom!: Record<string, unknown> | null;
}

export class PinGatewayResultDto {
  @ApiProperty({ description: 'Tools pinned at their current definition.' })
  tools!: number;

  @ApiProperty({ description: 'Prompts pinned at their current definition.' })
  prompts!: number;

  @ApiProperty({ description: 'Resource templates pinned at their current definition.' })
  resourceTemplates!: number;
}
