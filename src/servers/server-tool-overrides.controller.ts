import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import {
  ServerToolOverrideDto,
  ServerToolOverrideListDto,
  ServerToolOverrideResponseDto,
} from './dto/server-tool-override.dto';
import { ServerToolOverridesService } from './server-tool-overrides.service';

@ApiTags('servers')
@MinRole('operator')
@Controller('api/v1/servers/:id/tool-overrides')
export class ServerToolOverridesController {
  constructor(private readonly overrides: ServerToolOverridesService) {}

  @Get()
  @MinRole('member')
  @ApiOperation({ summary: "A virtual server's tool overrides" })
  @ApiOkResponse({ type: ServerToolOverrideListDto })
  @ApiProblems(400, 404)
  list(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerToolOverrideListDto> {
    return this.overrides.list(id, scope);
  }

  @Put(':toolId')
  @ApiOperation({
    summary:
      'Set how the server shows a member tool: exposed name, title, description, annotations',
    description:
      'Applied in `tools/list`, tool search and `tools/call` routing of this server, and kept across syncs (keyed by the tool id). Replaces the whole override. 422 `server.unknown_tools` when the tool is not a member; 409 `server.name_clash` when the exposed name clashes with another member.',
  })
  @ApiOkResponse({ type: ServerToolOverrideResponseDto })
  @ApiProblems(400, 404, 409, 422)
  put(
    @UuidParam() id: string,
    @UuidParam('toolId') toolId: string,
    @Body() dto: ServerToolOverrideDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerToolOverrideResponseDto> {
    return this.overrides.put(id, toolId, dto, scope);
  }

  @Delete(':toolId')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove the server's override of a tool" })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(400, 404)
  remove(
    @UuidParam() id: string,
    @UuidParam('toolId') toolId: string,
    @CurrentScope() scope: TeamScope,
  ): Promise<void> {
    return this.overrides.remove(id, toolId, scope);
  }
}
