import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsString, Matches } from 'class-validator';
import { TOOL_NAME_RULE } from '../../common/tool-name-rule';

export class ServerToolSearchDto {
  @ApiProperty({
    description:
      'Defer tool schemas behind a `tool_search` tool: `tools/list` then returns the always-loaded tools, the tools the session has promoted through `tool_search`, and `tool_search` itself.',
  })
  @IsBoolean()
  enabled!: boolean;

  @ApiProperty({
    description:
      'Virtual names of member tools that stay listed when search is on; every other tool is deferred.',
    type: [String],
    uniqueItems: true,
    maxItems: 1000,
    example: ['gateway-1-get_system_time'],
  })
  @IsArray()
  @ArrayMaxSize(1000)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(TOOL_NAME_RULE, {
    each: true,
    message: 'each alwaysLoaded entry must be a valid tool name',
  })
  alwaysLoaded!: string[];
}
