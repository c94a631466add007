import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class ServerTokenRequestDto {
  @ApiPropertyOptional({
    description: 'Lifetime in seconds; defaults to TOKEN_TTL_SECONDS.',
    minimum: 60,
    maximum: 365 * 24 * 3600,
  })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(365 * 24 * 3600)
  ttlSeconds?: number;
}
