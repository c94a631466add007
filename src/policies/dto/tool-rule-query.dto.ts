import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';
import { Optional } from '../../common/validation';

export class ToolRuleQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the rules of this tool.', format: 'uuid' })
  @Optional()
  @IsUUID()
  toolId?: string;

  @ApiPropertyOptional({ description: 'Only the rules of this server.', format: 'uuid' })
  @Optional()
  @IsUUID()
  serverId?: string;
}
