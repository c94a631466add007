import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';
import { Optional } from '../../common/validation';

/** Filters of the resource and resource-template lists. */
export class ResourceListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only entries of this gateway.', format: 'uuid' })
  @Optional()
  @IsUUID()
  gatewayId?: string;

  @ApiPropertyOptional({
    description: 'Case-insensitive text in the prefixed URI (or template), name or description.',
    maxLength: 200,
  })
  @Optional()
  @IsString()
  @MaxLength(200)
  q?: string;
}
