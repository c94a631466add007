import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { PromptListQueryDto } from './dto/prompt-list-query.dto';
import { PromptPageDto, PromptResponseDto } from './dto/prompt-response.dto';
import { PromptUpdateDto } from './dto/prompt-update.dto';
import { PromptsService } from './prompts.service';

/** Operators see the prompts of their teams' and global gateways, and enable or disable their
 * teams' ones. */
@ApiTags('prompts')
@MinRole('operator')
@Controller('api/v1/prompts')
export class PromptsController {
  constructor(private readonly prompts: PromptsService) {}

  @Get()
  @ApiOperation({ summary: 'List prompts, ordered by virtual name' })
  @ApiOkResponse({ type: PromptPageDto })
  @ApiProblems(422)
  list(
    @Query() query: PromptListQueryDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<PromptPageDto> {
    return this.prompts.list(query, scope);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a prompt' })
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<PromptResponseDto> {
    return this.prompts.get(id, scope);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Enable or disable a prompt' })
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: PromptUpdateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<PromptResponseDto> {
    return this.prompts.update(id, dto, scope);
  }
}
