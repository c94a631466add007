import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsString, Matches } from 'class-validator';
import { TOOL_NAME_RULE } from '../../tools/tool-name';

export class ServerToolSearchDto {
  @ApiProperty({ description: 'Defer tool schemas behind a `tool_search` tool.' })
  @IsBoolean()
  enabled!: boolean;

  @ApiProperty({
    description: 'Virtual names of member tools that stay listed when search is on.',
    type: [String],
    example: ['gateway-1-get_system_time'],
  })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Matches(TOOL_NAME_RULE, {
    each: true,
    message: 'each alwaysLoaded entry must be a valid tool name',
  })
  alwaysLoaded!: string[];
}
