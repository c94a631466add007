import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from '../../common/validation';

export class ServerTokenRequestDto {
  @ApiPropertyOptional({
    description: 'Lifetime in seconds; defaults to TOKEN_TTL_SECONDS.',
    minimum: 60,
    maximum: 365 * 24 * 3600,
  })
  @Optional()
  @IsInt()
  @Min(60)
  @Max(365 * 24 * 3600)
  ttlSeconds?: number;
}
