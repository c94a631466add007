import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import {
  ServerSkillsDto,
  ServerSkillsResponseDto,
  SkillListQueryDto,
  SkillPageDto,
  SkillResponseDto,
  SkillUpdateDto,
} from './dto/skill.dto';
import { SkillsService } from './skills.service';

/** Operators see the skills of their teams' and global gateways, and manage their teams' ones. */
@ApiTags('skills')
@MinRole('operator')
@Controller('api/v1')
export class SkillsController {
  constructor(private readonly skills: SkillsService) {}

  @Get('skills')
  @ApiOperation({ summary: 'List skills (Skills extension), ordered by gateway and name' })
  @ApiOkResponse({ type: SkillPageDto })
  @ApiProblems(422)
  list(@Query() query: SkillListQueryDto, @CurrentScope() scope: TeamScope): Promise<SkillPageDto> {
    return this.skills.list(query, scope);
  }

  @Get('skills/:id')
  @ApiOperation({ summary: 'Get a skill with its manifest and the approved one' })
  @ApiOkResponse({ type: SkillResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<SkillResponseDto> {
    return this.skills.get(id, scope);
  }

  @Patch('skills/:id')
  @ApiOperation({ summary: 'Enable or disable a skill' })
  @ApiOkResponse({ type: SkillResponseDto })
  @ApiProblems(400, 403, 404, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: SkillUpdateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<SkillResponseDto> {
    return this.skills.update(id, dto, scope);
  }

  @Post('skills/:id/approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve the manifest the upstream lists now',
    description: 'A held skill (new under review, or changed since approval) is served again.',
  })
  @ApiOkResponse({ type: SkillResponseDto })
  @ApiProblems(400, 403, 404)
  approve(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<SkillResponseDto> {
    return this.skills.approve(id, scope);
  }

  @Get('servers/:serverId/skills')
  @ApiOperation({ summary: 'The skills a virtual server serves' })
  @ApiOkResponse({ type: ServerSkillsResponseDto })
  @ApiProblems(400, 404)
  async serverSkills(
    @Param('serverId', ParseUUIDPipe) serverId: string,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerSkillsResponseDto> {
    return { skills: await this.skills.serverSkills(serverId, scope) };
  }

  @Put('servers/:serverId/skills')
  @ApiOperation({ summary: 'Set the skills a virtual server serves (replaces the list)' })
  @ApiOkResponse({ type: ServerSkillsResponseDto })
  @ApiProblems(400, 403, 404, 422)
  async setServerSkills(
    @Param('serverId', ParseUUIDPipe) serverId: string,
    @Body() dto: ServerSkillsDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ServerSkillsResponseDto> {
    return { skills: await this.skills.setServerSkills(serverId, dto.skillIds, scope) };
  }
}
