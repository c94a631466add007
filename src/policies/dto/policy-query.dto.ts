import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { PageQueryDto } from '../../common/page.dto';
import { Optional } from '../../common/validation';

export class PolicyQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the policies of this server.', format: 'uuid' })
  @Optional()
  @IsUUID()
  serverId?: string;
}
