import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { type ToolAppConfig } from '../tool-app-config';

/** MCP Apps settings an operator sets on a tool. */
export class ToolAppConfigDto implements ToolAppConfig {
  @ApiPropertyOptional({
    description: 'Serve Portico’s bundled Prefab renderer as this tool’s UI.',
  })
  @IsOptional()
  @IsBoolean()
  prefab?: boolean;
}
