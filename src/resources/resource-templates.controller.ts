import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ResourceListQueryDto } from './dto/resource-list-query.dto';
import { ResourceTemplatePageDto, ResourceTemplateResponseDto } from './dto/resource-response.dto';
import { ResourceUpdateDto } from './dto/resource-update.dto';
import { ResourcesService } from './resources.service';

@ApiTags('resources')
@Controller('api/v1/resource-templates')
export class ResourceTemplatesController {
  constructor(private readonly resources: ResourcesService) {}

  @Get()
  @ApiOperation({ summary: 'List resource templates, ordered by prefixed template' })
  @ApiOkResponse({ type: ResourceTemplatePageDto })
  @ApiProblems(422)
  list(@Query() query: ResourceListQueryDto): Promise<ResourceTemplatePageDto> {
    return this.resources.listTemplates(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a resource template' })
  @ApiOkResponse({ type: ResourceTemplateResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string): Promise<ResourceTemplateResponseDto> {
    return this.resources.getTemplate(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Enable or disable a resource template' })
  @ApiOkResponse({ type: ResourceTemplateResponseDto })
  @ApiProblems(400, 404, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: ResourceUpdateDto,
  ): Promise<ResourceTemplateResponseDto> {
    return this.resources.updateTemplate(id, dto);
  }
}
