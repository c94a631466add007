import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentPrincipal, CurrentScope } from '../auth/current-principal.decorator';
import { type Principal } from '../auth/principal';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { ServerCreateDto } from './dto/server-create.dto';
import { ServerPageDto, ServerResponseDto } from './dto/server-response.dto';
import { ServerUpdateDto } from './dto/server-update.dto';
import { ServerTokenRequestDto } from './dto/server-token-request.dto';
import { ServersService } from './servers.service';
import { TokenResponseDto } from '../auth/dto/token-response.dto';

/** Members see their teams' and global servers; operators manage their teams' ones. */
@ApiTags('servers')
@MinRole('operator')
@Controller('api/v1/servers')
export class ServersController {
  constructor(private readonly servers: ServersService) {}

  @Get()
  @MinRole('member')
  @ApiOperation({ summary: 'List virtual servers' })
  @ApiOkResponse({ type: ServerPageDto })
  @ApiProblems(422)
  list(@Query() page: PageQueryDto, @CurrentScope() scope: TeamScope): Promise<ServerPageDto> {
    return this.servers.list(page, scope);
  }

  @Post()
  @ApiOperation({
    summary: 'Compose a virtual server from tools, resources, resource templates and prompts',
    description:
      '422 names unknown member ids; 409 when the name is taken, or when naming `original` would show two members under one name (`server.name_clash`, with `clashes`).',
  })
  @ApiCreatedResponse({ type: ServerResponseDto })
  @ApiProblems(400, 409, 413, 422)
  create(
    @Body() dto: ServerCreateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerResponseDto> {
    return this.servers.create(dto, scope);
  }

  @Get(':id')
  @MinRole('member')
  @ApiOperation({ summary: 'Get a virtual server' })
  @ApiOkResponse({ type: ServerResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<ServerResponseDto> {
    return this.servers.get(id, scope);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Edit a virtual server; each id list given replaces that kind of member',
    description:
      'Switching to naming `original`, or changing members of a server that has it, is refused with 409 `server.name_clash` when two members would show under one name.',
  })
  @ApiOkResponse({ type: ServerResponseDto })
  @ApiProblems(400, 404, 409, 413, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: ServerUpdateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerResponseDto> {
    return this.servers.update(id, dto, scope);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a virtual server (its members stay registered)' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 404)
  remove(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<void> {
    return this.servers.remove(id, scope);
  }

  @Post(':id/tokens')
  @MinRole('member')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Issue a bearer token that may only use this server’s MCP endpoint',
    description:
      'For agents and MCP clients: the token cannot call the REST API, `/mcp` or other servers. It is a managed API token of the caller (listed and revoked under /api/v1/tokens).',
  })
  @ApiCreatedResponse({ type: TokenResponseDto })
  @ApiProblems(400, 404, 409, 422)
  issueToken(
    @UuidParam() id: string,
    @Body() dto: ServerTokenRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TokenResponseDto> {
    return this.servers.issueToken(id, principal, dto.ttlSeconds);
  }
}
