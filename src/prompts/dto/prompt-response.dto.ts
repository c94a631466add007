import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PinStateDto } from '../../pin-state/pin-state.dto';
import { type PromptArgument } from '../prompt.entity';

export class PromptArgumentDto implements PromptArgument {
  @ApiProperty({ description: 'Argument name.' })
  name!: string;

  @ApiPropertyOptional({ description: 'What the argument is for (untrusted text).' })
  description?: string;

  @ApiPropertyOptional({ description: 'Whether the prompt needs it.' })
  required?: boolean;
}

export class PromptResponseDto {
  @ApiProperty({ description: 'Prompt id.', format: 'uuid' })
  id!: string;

  @ApiProperty({
    description:
      'Virtual name: gateway slug + separator + original name. Servers with naming `original` show `originalName`.',
    example: 'gateway-1-code_review',
  })
  name!: string;

  @ApiProperty({ description: 'The upstream’s own name, used when getting it.' })
  originalName!: string;

  @ApiProperty({ description: 'Upstream display title.', nullable: true, type: String })
  title!: string | null;

  @ApiProperty({ description: 'Upstream description (untrusted text).' })
  description!: string;

  @ApiProperty({ description: 'Arguments the prompt takes.', type: [PromptArgumentDto] })
  arguments!: PromptArgumentDto[];

  @ApiProperty({
    description: 'Upstream `_meta`.',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  meta!: Record<string, unknown> | null;

  @ApiProperty({ description: 'Id of the gateway that supplies the prompt.', format: 'uuid' })
  gatewayId!: string;

  @ApiProperty({ description: 'Slug of that gateway.' })
  gatewaySlug!: string;

  @ApiProperty({ description: 'Whether the prompt is served.' })
  enabled!: boolean;

  @ApiProperty({
    description:
      'The pin of its definition: approved hash, current hash, and whether it is held back (not served) until an operator decides.',
    type: PinStateDto,
  })
  pin!: PinStateDto;

  @ApiProperty({ description: 'When the prompt was first stored.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class PromptPageDto {
  @ApiProperty({ description: 'This page of prompts.', type: [PromptResponseDto] })
  items!: PromptResponseDto[];

  @ApiProperty({ description: 'Number of matching prompts in all pages.' })
  total!: number;
}
