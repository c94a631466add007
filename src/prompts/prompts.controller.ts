import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { PromptListQueryDto } from './dto/prompt-list-query.dto';
import { PromptPageDto, PromptResponseDto } from './dto/prompt-response.dto';
import { PromptUpdateDto } from './dto/prompt-update.dto';
import { PromptsService } from './prompts.service';

@ApiTags('prompts')
@Controller('api/v1/prompts')
export class PromptsController {
  constructor(private readonly prompts: PromptsService) {}

  @Get()
  @ApiOperation({ summary: 'List prompts, ordered by virtual name' })
  @ApiOkResponse({ type: PromptPageDto })
  @ApiProblems(422)
  list(@Query() query: PromptListQueryDto): Promise<PromptPageDto> {
    return this.prompts.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a prompt' })
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string): Promise<PromptResponseDto> {
    return this.prompts.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Enable or disable a prompt' })
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404, 422)
  update(@UuidParam() id: string, @Body() dto: PromptUpdateDto): Promise<PromptResponseDto> {
    return this.prompts.update(id, dto);
  }
}
