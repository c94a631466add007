import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ConsolidatedToolsService } from './consolidated-tools.service';
import {
  ConsolidatedToolCreateDto,
  ConsolidatedToolListDto,
  ConsolidatedToolResponseDto,
  ConsolidatedToolUpdateDto,
} from './dto/consolidated-tool.dto';

const WRITE_ERRORS =
  "409 `consolidated_tool.name_taken` for a name a gateway tool or another consolidated tool has; 422 `consolidated_tool.schema_mismatch` (naming the target and the first difference) when the members' input schemas differ, `consolidated_tool.unknown_tools`, `consolidated_tool.unknown_servers`, `consolidated_tool.duplicate_members`.";

/** Admins only (no MinRole): a consolidated tool spans gateways and servers of any team. */
@ApiTags('consolidated-tools')
@Controller('api/v1/consolidated-tools')
export class ConsolidatedToolsController {
  constructor(private readonly tools: ConsolidatedToolsService) {}

  @Get()
  @ApiOperation({ summary: 'List consolidated tools, with each member’s schema drift' })
  @ApiOkResponse({ type: ConsolidatedToolListDto })
  list(): Promise<ConsolidatedToolListDto> {
    return this.tools.list();
  }

  @Post()
  @ApiOperation({
    summary: 'Consolidate the same tool on several gateways into one tool with a `target` argument',
    description: `Clients see one tool: the shared input schema plus a required \`target\` enum of the targets the caller may reach (a target whose member tool a policy hides from the caller is left out). ${WRITE_ERRORS}`,
  })
  @ApiCreatedResponse({ type: ConsolidatedToolResponseDto })
  @ApiProblems(400, 409, 422)
  create(@Body() dto: ConsolidatedToolCreateDto): Promise<ConsolidatedToolResponseDto> {
    return this.tools.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a consolidated tool' })
  @ApiOkResponse({ type: ConsolidatedToolResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string): Promise<ConsolidatedToolResponseDto> {
    return this.tools.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Edit a consolidated tool', description: WRITE_ERRORS })
  @ApiOkResponse({ type: ConsolidatedToolResponseDto })
  @ApiProblems(400, 404, 409, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: ConsolidatedToolUpdateDto,
  ): Promise<ConsolidatedToolResponseDto> {
    return this.tools.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a consolidated tool (its member tools stay)' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 404)
  remove(@UuidParam() id: string): Promise<void> {
    return this.tools.remove(id);
  }
}
