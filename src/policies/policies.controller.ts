import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { PolicyCreateDto } from './dto/policy-create.dto';
import { PolicyQueryDto } from './dto/policy-query.dto';
import { PolicyPageDto, PolicyResponseDto } from './dto/policy-response.dto';
import { PolicyUpdateDto } from './dto/policy-update.dto';
import { PoliciesService } from './policies.service';

const COMPILE_ERRORS =
  '400 `policy.invalid_expression` for an expression that does not compile to a bool (the detail has the message, `position` its offset, line and column); 409 `policy.name_taken`; 422 `policy.unknown_target` for an unknown server, `policy.invalid_approval` for approval settings on a policy that is not `approve`.';

/** Admins only (no MinRole): policies bind every team. */
@ApiTags('policies')
@Controller('api/v1/policies')
export class PoliciesController {
  constructor(private readonly policies: PoliciesService) {}

  @Get()
  @ApiOperation({ summary: 'List policies, in the order they are tried' })
  @ApiOkResponse({ type: PolicyPageDto })
  @ApiProblems(422)
  list(@Query() query: PolicyQueryDto): Promise<PolicyPageDto> {
    return this.policies.list(query, { serverId: query.serverId });
  }

  @Post()
  @ApiOperation({
    summary: 'Create a policy: a CEL expression that allows, denies or asks for approval',
    description: `In a scope (\`/mcp\` or one server's endpoint; REST invoke uses the global policies) the enabled policies are tried by priority, then name; the first true one decides. None: allowed. A denied tool is invisible and uncallable: absent from \`tools/list\` and tool search, an unknown tool to \`tools/call\`, 404 to REST invoke. An expression that fails when evaluated does not match (counted in \`portico_policy_errors_total\`). ${COMPILE_ERRORS}`,
  })
  @ApiCreatedResponse({ type: PolicyResponseDto })
  @ApiProblems(400, 409, 422)
  create(@Body() dto: PolicyCreateDto): Promise<PolicyResponseDto> {
    return this.policies.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a policy' })
  @ApiOkResponse({ type: PolicyResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string): Promise<PolicyResponseDto> {
    return this.policies.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Edit a policy', description: COMPILE_ERRORS })
  @ApiOkResponse({ type: PolicyResponseDto })
  @ApiProblems(400, 404, 409, 422)
  update(@UuidParam() id: string, @Body() dto: PolicyUpdateDto): Promise<PolicyResponseDto> {
    return this.policies.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a policy' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 404)
  remove(@UuidParam() id: string): Promise<void> {
    return this.policies.remove(id);
  }
}
