import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';

export class ToolListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only tools of this gateway.', format: 'uuid' })
  @IsOptional()
  @IsUUID()
  gatewayId?: string;

  @ApiPropertyOptional({
    description: 'Case-insensitive text in the virtual name or description.',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}
