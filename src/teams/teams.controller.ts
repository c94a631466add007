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
import { TeamCreateDto, TeamPageDto, TeamResponseDto, TeamUpdateDto } from './dto/team.dto';
import { TeamsService } from './teams.service';

@ApiTags('teams')
@Controller('api/v1/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Get()
  @MinRole('member')
  @ApiOperation({ summary: 'List teams: every team for admins, one’s own teams for others' })
  @ApiOkResponse({ type: TeamPageDto })
  @ApiProblems(422)
  list(@Query() page: PageQueryDto, @CurrentScope() scope: TeamScope): Promise<TeamPageDto> {
    return this.teams.list(page, scope);
  }

  @Post()
  @ApiOperation({ summary: 'Create a team (admins)' })
  @ApiCreatedResponse({ type: TeamResponseDto })
  @ApiProblems(400, 403, 409, 422)
  create(@Body() dto: TeamCreateDto): Promise<TeamResponseDto> {
    return this.teams.create(dto);
  }

  @Get(':id')
  @MinRole('member')
  @ApiOperation({ summary: 'Get a team one belongs to (any team, for admins)' })
  @ApiOkResponse({ type: TeamResponseDto })
  @ApiProblems(400, 403, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<TeamResponseDto> {
    return this.teams.get(id, scope);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename or describe a team (admins)' })
  @ApiOkResponse({ type: TeamResponseDto })
  @ApiProblems(400, 403, 404, 409, 422)
  update(@UuidParam() id: string, @Body() dto: TeamUpdateDto): Promise<TeamResponseDto> {
    return this.teams.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a team (admins); refused while it owns gateways or servers',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 403, 404, 409)
  remove(@UuidParam() id: string): Promise<void> {
    return this.teams.remove(id);
  }
}
