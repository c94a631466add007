import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { RATE_LIMIT_KEYS, type RateLimitKey } from '../rate-limit.entity';

export const MOST_POINTS = 1_000_000;
export const LONGEST_WINDOW_SECONDS = 7 * 24 * 3600;

export class RateLimitCreateDto {
  @ApiProperty({
    description:
      'Whose calls one counter counts: `token` (each API token; a login or session counts as its person) or `user` (each person, all their tokens together).',
    enum: RATE_LIMIT_KEYS,
  })
  @IsIn(RATE_LIMIT_KEYS)
  per!: RateLimitKey;

  @ApiPropertyOptional({
    type: String,
    description:
      'The virtual server it holds on; null or absent: everywhere (`/mcp`, every server, REST invoke).',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  serverId?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: 'The one tool it counts; null or absent: every tool, counted together.',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  toolId?: string | null;

  @ApiProperty({ description: 'Calls allowed per window.', minimum: 1, maximum: MOST_POINTS })
  @IsInt()
  @Min(1)
  @Max(MOST_POINTS)
  points!: number;

  @ApiProperty({
    description: 'The window in seconds; it starts with the first call it counts.',
    minimum: 1,
    maximum: LONGEST_WINDOW_SECONDS,
  })
  @IsInt()
  @Min(1)
  @Max(LONGEST_WINDOW_SECONDS)
  windowSeconds!: number;
}
