import { ApiProperty } from '@nestjs/swagger';
import { RATE_LIMIT_KEYS, type RateLimitKey } from '../rate-limit.entity';

export class RateLimitResponseDto {
  @ApiProperty({ description: 'Rate limit id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Whose calls one counter counts.', enum: RATE_LIMIT_KEYS })
  per!: RateLimitKey;

  @ApiProperty({
    type: String,
    description: 'The virtual server it holds on, or null for everywhere.',
    format: 'uuid',
    nullable: true,
  })
  serverId!: string | null;

  @ApiProperty({
    type: String,
    description:
      'The tool it counts, as the catalogue holds it now; null for all tools together, and while its tool is away (`toolAway`).',
    format: 'uuid',
    nullable: true,
  })
  toolId!: string | null;

  @ApiProperty({
    type: String,
    description: 'The gateway of the tool it counts, or null for all tools together.',
    format: 'uuid',
    nullable: true,
  })
  gatewayId!: string | null;

  @ApiProperty({
    type: String,
    description:
      'The upstream name of the tool it counts, or null for all tools together. The limit stays with this name while the tool is away, and holds again when the gateway lists it again.',
    nullable: true,
  })
  toolName!: string | null;

  @ApiProperty({
    description:
      'True while the gateway’s upstream does not list the tool it counts (it left in a sync); false otherwise.',
  })
  toolAway!: boolean;

  @ApiProperty({ description: 'Calls allowed per window.' })
  points!: number;

  @ApiProperty({ description: 'The window in seconds.' })
  windowSeconds!: number;

  @ApiProperty({ description: 'Creation time.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class RateLimitPageDto {
  @ApiProperty({ description: 'This page of rate limits.', type: [RateLimitResponseDto] })
  items!: RateLimitResponseDto[];

  @ApiProperty({ description: 'Number of rate limits in all pages.' })
  total!: number;
}
