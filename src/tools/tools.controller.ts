import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentPrincipal, CurrentScope } from '../auth/current-principal.decorator';
import { type Principal } from '../auth/principal';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ToolInvokeDto, ToolInvokeResultDto } from './dto/tool-invoke.dto';
import { ToolListQueryDto } from './dto/tool-list-query.dto';
import { ToolPageDto, ToolResponseDto } from './dto/tool-response.dto';
import { ToolUpdateDto } from './dto/tool-update.dto';
import { ToolInvoker } from './tool.invoker';
import { ToolsService } from './tools.service';

/** Operators see the tools of their teams' and global gateways, and manage their teams' ones. */
@ApiTags('tools')
@MinRole('operator')
@Controller('api/v1/tools')
export class ToolsController {
  constructor(
    private readonly tools: ToolsService,
    private readonly invoker: ToolInvoker,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List tools, ordered by virtual name' })
  @ApiOkResponse({ type: ToolPageDto })
  @ApiProblems(422)
  list(@Query() query: ToolListQueryDto, @CurrentScope() scope: TeamScope): Promise<ToolPageDto> {
    return this.tools.list(query, scope);
  }

  @Get('by-name/:name')
  @ApiOperation({ summary: 'Look a tool up by its virtual name' })
  @ApiOkResponse({ type: ToolResponseDto })
  @ApiProblems(404)
  getByName(
    @Param('name') name: string,
    @CurrentScope() scope: TeamScope,
  ): Promise<ToolResponseDto> {
    return this.tools.getByName(name, scope);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a tool' })
  @ApiOkResponse({ type: ToolResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<ToolResponseDto> {
    return this.tools.get(id, scope);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Enable or disable a tool, or set its MCP Apps settings' })
  @ApiOkResponse({ type: ToolResponseDto })
  @ApiProblems(400, 404, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: ToolUpdateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ToolResponseDto> {
    return this.tools.update(id, dto, scope);
  }

  @Post(':id/invoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Call the tool on its upstream under its original name',
    description:
      'Returns the MCP CallToolResult as is; a tool that reports a failure answers 200 with `isError: true`. 404 also when a global tool rule denies the tool to the caller; 409 when the tool or its gateway is disabled; 429 with `Retry-After` past a global rate limit; 502 when the upstream fails or does not answer within UPSTREAM_TIMEOUT_MS (with `Retry-After` when its own 429 or 503 said when to try again); 503 with `Retry-After` when Portico did not send the call because the circuit breaker of the upstream is open or its queue is full.',
  })
  @ApiOkResponse({ type: ToolInvokeResultDto })
  @ApiProblems(400, 404, 409, 422, 429, 502, 503)
  invoke(
    @UuidParam() id: string,
    @Body() dto: ToolInvokeDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ToolInvokeResultDto> {
    return this.invoker.invoke(id, dto.arguments ?? {}, scope, principal);
  }
}
