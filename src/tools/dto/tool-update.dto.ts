import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { NestedObject, Optional } from '../../common/validation';
import { ToolAppConfigDto } from './tool-app-config.dto';

export class ToolUpdateDto {
  @ApiPropertyOptional({ description: 'Serve or hide the tool.' })
  @Optional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    description: 'MCP Apps settings; replaces the stored ones. null clears them.',
    type: ToolAppConfigDto,
    nullable: true,
  })
  @IsOptional()
  @NestedObject(() => ToolAppConfigDto)
  appConfig?: ToolAppConfigDto | null;
}
