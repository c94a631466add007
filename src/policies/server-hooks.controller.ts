import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ServerHooksDto } from './dto/server-hooks.dto';
import { ServerHooksService } from './server-hooks.service';

@ApiTags('policies')
@MinRole('operator')
@Controller('api/v1/servers/:id/hooks')
export class ServerHooksController {
  constructor(private readonly hooks: ServerHooksService) {}

  @Get()
  @MinRole('member')
  @ApiOperation({ summary: "A virtual server's tool-call hooks, in order" })
  @ApiOkResponse({ type: ServerHooksDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<ServerHooksDto> {
    return this.hooks.get(id, scope);
  }

  @Put()
  @ApiOperation({
    summary: "Replace a virtual server's tool-call hooks",
    description:
      'Built-in hooks: `secret-redaction` (cuts common key formats out of tool results) and `size-limit` (`maxArgumentBytes`, `maxResultBytes`). A hook that refuses or fails refuses the call with JSON-RPC error -32011. 422 `policy.invalid_hooks` for an unknown hook or bad settings.',
  })
  @ApiOkResponse({ type: ServerHooksDto })
  @ApiProblems(400, 404, 422)
  replace(
    @UuidParam() id: string,
    @Body() dto: ServerHooksDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerHooksDto> {
    return this.hooks.replace(id, dto, scope);
  }
}
