import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ToolRuleCreateDto } from './dto/tool-rule-create.dto';
import { ToolRuleQueryDto } from './dto/tool-rule-query.dto';
import { ToolRulePageDto, ToolRuleResponseDto } from './dto/tool-rule-response.dto';
import { ToolRulesService } from './tool-rules.service';

/** Admins only (no MinRole): rules bind every team. */
@ApiTags('policies')
@Controller('api/v1/tool-rules')
export class ToolRulesController {
  constructor(private readonly rules: ToolRulesService) {}

  @Get()
  @ApiOperation({ summary: 'List tool allow/deny rules' })
  @ApiOkResponse({ type: ToolRulePageDto })
  @ApiProblems(422)
  list(@Query() query: ToolRuleQueryDto): Promise<ToolRulePageDto> {
    return this.rules.list(query, { toolId: query.toolId, serverId: query.serverId });
  }

  @Post()
  @ApiOperation({
    summary: 'Allow or deny a tool to a team, a role, or both',
    description:
      'A denied tool is invisible and uncallable for matching principals: absent from `tools/list` and tool search, an unknown tool to `tools/call`, 404 to REST invoke. Once a tool has an allow rule, only principals matching an allow rule may use it. 422 `policy.unknown_target` for an unknown tool, server or team.',
  })
  @ApiCreatedResponse({ type: ToolRuleResponseDto })
  @ApiProblems(400, 422)
  create(@Body() dto: ToolRuleCreateDto): Promise<ToolRuleResponseDto> {
    return this.rules.create(dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a tool rule' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 404)
  remove(@UuidParam() id: string): Promise<void> {
    return this.rules.remove(id);
  }
}
