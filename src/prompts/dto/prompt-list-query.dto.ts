import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';
import { Optional } from '../../common/validation';

export class PromptListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only prompts of this gateway.', format: 'uuid' })
  @Optional()
  @IsUUID()
  gatewayId?: string;

  @ApiPropertyOptional({
    description: 'Case-insensitive text in the virtual name or description.',
    maxLength: 200,
  })
  @Optional()
  @IsString()
  @MaxLength(200)
  q?: string;
}
