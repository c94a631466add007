import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentScope } from '../auth/current-principal.decorator';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ResourceListQueryDto } from './dto/resource-list-query.dto';
import { ResourcePageDto, ResourceResponseDto } from './dto/resource-response.dto';
import { ResourceUpdateDto } from './dto/resource-update.dto';
import { ResourcesService } from './resources.service';

/** Operators see the resources of their teams' and global gateways, and enable or disable their
 * teams' ones. */
@ApiTags('resources')
@MinRole('operator')
@Controller('api/v1/resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Get()
  @ApiOperation({ summary: 'List resources, ordered by prefixed URI' })
  @ApiOkResponse({ type: ResourcePageDto })
  @ApiProblems(422)
  list(
    @Query() query: ResourceListQueryDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ResourcePageDto> {
    return this.resources.list(query, scope);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a resource' })
  @ApiOkResponse({ type: ResourceResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<ResourceResponseDto> {
    return this.resources.get(id, scope);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Enable or disable a resource' })
  @ApiOkResponse({ type: ResourceResponseDto })
  @ApiProblems(400, 404, 422)
  update(
    @UuidParam() id: string,
    @Body() dto: ResourceUpdateDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<ResourceResponseDto> {
    return this.resources.update(id, dto, scope);
  }
}
