import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { SyncReportDto } from '../sync/dto/sync-report.dto';
import { SyncService } from '../sync/sync.service';
import { GatewayCreateDto } from './dto/gateway-create.dto';
import { GatewayProcessesDto } from './dto/gateway-processes.dto';
import { GatewayPageDto, GatewayResponseDto } from './dto/gateway-response.dto';
import { GatewayUpdateDto } from './dto/gateway-update.dto';
import { GatewaysService } from './gateways.service';

/** Operators manage their teams' gateways (and read global ones); admins manage all. */
@ApiTags('gateways')
@MinRole('operator')
@Controller('api/v1/gateways')
export class GatewaysController {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly sync: SyncService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List gateways' })
  @ApiOkResponse({ type: GatewayPageDto })
  @ApiProblems(422)
  list(@Query() page: PageQueryDto, @CurrentScope() scope: TeamScope): Promise<GatewayPageDto> {
    return this.gateways.list(page, scope);
  }

  @Post()
  @ApiOperation({
    summary: 'Register an upstream MCP server and sync its tools',
    description:
      'Waits a few seconds for the first sync; an unreachable upstream is recorded in `status` and `lastError`, and the gateway is created all the same. A `stdio` gateway (Portico launches `command` with `args`, `env`, `cwd`, never through a shell) may be registered by admins only (403 otherwise), with a command on STDIO_COMMANDS (422 otherwise).',
  })
  @ApiCreatedResponse({ type: GatewayResponseDto })
  @ApiProblems(400, 403, 409, 413, 422)
  create(
    @Body() dto: GatewayCreateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<GatewayResponseDto> {
    return this.gateways.create(dto, scope);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a gateway' })
  @ApiOkResponse({ type: GatewayResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<GatewayResponseDto> {
    return this.gateways.get(id, scope);
  }

  @Get(':id/processes')
  @ApiOperation({
    summary: 'The stdio processes the answering replica runs for the gateway',
    description:
      'Each replica runs its own processes: live ones (warm spares and in-use), restarts, failed starts with their backoff, and the last stderr lines with secrets cut out. Empty for HTTP gateways.',
  })
  @ApiOkResponse({ type: GatewayProcessesDto })
  @ApiProblems(400, 404)
  processes(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
  ): Promise<GatewayProcessesDto> {
    return this.gateways.processes(id, scope);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Edit a gateway; a new name re-slugs all of its tools atomically',
    description:
      'A new URL, transport or auth syncs the gateway again. A new `pinning` or `quarantineOnFinding` judges every current definition at once, before any sync: scanned again, quarantined where the threshold holds it (not pinned as approved), and with pinning switched on the rest pinned.',
  })
  @ApiOkResponse({ type: GatewayResponseDto })
  @ApiProblems(400, 403, 404, 409, 413, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: GatewayUpdateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<GatewayResponseDto> {
    return this.gateways.update(id, dto, scope);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a gateway with its tools and their server memberships' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 404)
  remove(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<void> {
    return this.gateways.remove(id, scope);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Serve the gateway’s tools again, after syncing them' })
  @ApiOkResponse({ type: GatewayResponseDto })
  @ApiProblems(400, 404)
  activate(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<GatewayResponseDto> {
    return this.gateways.setEnabled(id, true, scope);
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Hide the gateway’s tools from every MCP listing and call, keeping them stored',
  })
  @ApiOkResponse({ type: GatewayResponseDto })
  @ApiProblems(400, 404)
  deactivate(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
  ): Promise<GatewayResponseDto> {
    return this.gateways.setEnabled(id, false, scope);
  }

  @Post(':id/sync')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sync the gateway’s tools from its upstream now',
    description:
      'Lists every upstream tool and applies the difference in one transaction. Shares a sync of the same gateway already running in this replica (its report is the answer); 409 if another replica is applying one.',
  })
  @ApiOkResponse({ type: SyncReportDto })
  @ApiProblems(400, 404, 409, 502)
  async syncNow(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<SyncReportDto> {
    await this.gateways.manageable(id, scope);
    return this.sync.syncNow(id);
  }
}
