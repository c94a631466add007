import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentPrincipal, CurrentScope } from '../auth/current-principal.decorator';
import { type Principal } from '../auth/principal';
import { TeamScope } from '../auth/team-scope';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { PromptResponseDto } from '../prompts/dto/prompt-response.dto';
import { PromptsService } from '../prompts/prompts.service';
import { ResourceTemplateResponseDto } from '../resources/dto/resource-response.dto';
import { ResourcesService } from '../resources/resources.service';
import { ToolResponseDto } from '../tools/dto/tool-response.dto';
import { ToolsService } from '../tools/tools.service';
import { PinDecisionDto } from './dto/pin-decision.dto';
import { PinGatewayResultDto, PinReviewDto } from './dto/pin-review.dto';
import { QuarantinePageDto, QuarantineQueryDto } from './dto/quarantine.dto';
import { PinsService } from './pins.service';
import { QuarantineQuery } from './quarantine.query';

const APPROVE = {
  summary: 'Approve the definition waiting for review, by the hash reviewed',
  description:
    "Names the held change's hash (`pin.quarantine.heldHash`), or the stored definition's (`pin.contentHash`) when nothing is held aside; that definition is then pinned and served. On an entry that waits for nothing, pins its definition as it is. 409 when the hash is not the one waiting: the definition changed since it was reviewed.",
};
const REJECT = {
  summary: 'Reject the definition waiting for review, by the hash reviewed',
  description:
    'A held change is dropped and remembered (syncs that bring it again keep it out), and the pinned definition is served again; the upstream may no longer accept calls shaped by it, and those calls then fail with its error. An entry never approved (new, or flagged by the scanner) is disabled instead. 409 when the hash is not the one waiting.',
};
const UNPIN = {
  summary: 'Stop pinning the definition',
  description:
    'Changes the upstream makes to it are then served as they come. 409 while the entry waits for review.',
};
const REVIEW = {
  summary: 'The stored and the held definition, to compare before deciding',
};

/** Pins of tools; operators decide for their teams' gateways, admins for all. */
@ApiTags('tools')
@MinRole('operator')
@Controller('api/v1/tools')
export class ToolPinsController {
  constructor(
    private readonly pins: PinsService,
    private readonly tools: ToolsService,
  ) {}

  @Get(':id/pin')
  @ApiOperation(REVIEW)
  @ApiOkResponse({ type: PinReviewDto })
  @ApiProblems(400, 404)
  review(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<PinReviewDto> {
    return this.pins.review('tool', id, scope);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation(APPROVE)
  @ApiOkResponse({ type: ToolResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async approve(
    @UuidParam() id: string,
    @Body() dto: PinDecisionDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ToolResponseDto> {
    await this.pins.approve('tool', id, dto.hash, scope, principal);
    return this.tools.get(id, scope);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation(REJECT)
  @ApiOkResponse({ type: ToolResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async reject(
    @UuidParam() id: string,
    @Body() dto: PinDecisionDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ToolResponseDto> {
    await this.pins.reject('tool', id, dto.hash, scope, principal);
    return this.tools.get(id, scope);
  }

  @Delete(':id/pin')
  @ApiOperation(UNPIN)
  @ApiOkResponse({ type: ToolResponseDto })
  @ApiProblems(400, 404, 409)
  async unpin(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ToolResponseDto> {
    await this.pins.unpin('tool', id, scope, principal);
    return this.tools.get(id, scope);
  }
}

/** Pins of prompts; operators decide for their teams' gateways, admins for all. */
@ApiTags('prompts')
@MinRole('operator')
@Controller('api/v1/prompts')
export class PromptPinsController {
  constructor(
    private readonly pins: PinsService,
    private readonly prompts: PromptsService,
  ) {}

  @Get(':id/pin')
  @ApiOperation(REVIEW)
  @ApiOkResponse({ type: PinReviewDto })
  @ApiProblems(400, 404)
  review(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<PinReviewDto> {
    return this.pins.review('prompt', id, scope);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation(APPROVE)
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async approve(
    @UuidParam() id: string,
    @Body() dto: PinDecisionDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PromptResponseDto> {
    await this.pins.approve('prompt', id, dto.hash, scope, principal);
    return this.prompts.get(id, scope);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation(REJECT)
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async reject(
    @UuidParam() id: string,
    @Body() dto: PinDecisionDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PromptResponseDto> {
    await this.pins.reject('prompt', id, dto.hash, scope, principal);
    return this.prompts.get(id, scope);
  }

  @Delete(':id/pin')
  @ApiOperation(UNPIN)
  @ApiOkResponse({ type: PromptResponseDto })
  @ApiProblems(400, 404, 409)
  async unpin(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PromptResponseDto> {
    await this.pins.unpin('prompt', id, scope, principal);
    return this.prompts.get(id, scope);
  }
}

/** Pins of resource templates; operators decide for their teams' gateways, admins for all. */
@ApiTags('resources')
@MinRole('operator')
@Controller('api/v1/resource-templates')
export class ResourceTemplatePinsController {
  constructor(
    private readonly pins: PinsService,
    private readonly resources: ResourcesService,
  ) {}

  @Get(':id/pin')
  @ApiOperation(REVIEW)
  @ApiOkResponse({ type: PinReviewDto })
  @ApiProblems(400, 404)
  review(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<PinReviewDto> {
    return this.pins.review('resource-template', id, scope);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation(APPROVE)
  @ApiOkResponse({ type: ResourceTemplateResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async approve(
    @UuidParam() id: string,
    @Body() dto: PinDecisionDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ResourceTemplateResponseDto> {
    await this.pins.approve('resource-template', id, dto.hash, scope, principal);
    return this.resources.getTemplate(id, scope);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation(REJECT)
  @ApiOkResponse({ type: ResourceTemplateResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async reject(
    @UuidParam() id: string,
    @Body() dto: PinDecisionDto,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ResourceTemplateResponseDto> {
    await this.pins.reject('resource-template', id, dto.hash, scope, principal);
    return this.resources.getTemplate(id, scope);
  }

  @Delete(':id/pin')
  @ApiOperation(UNPIN)
  @ApiOkResponse({ type: ResourceTemplateResponseDto })
  @ApiProblems(400, 404, 409)
  async unpin(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ResourceTemplateResponseDto> {
    await this.pins.unpin('resource-template', id, scope, principal);
    return this.resources.getTemplate(id, scope);
  }
}

/** The quarantine queue, and pinning a whole gateway. */
@ApiTags('quarantine')
@MinRole('operator')
@Controller('api/v1')
export class QuarantineController {
  constructor(
    private readonly pins: PinsService,
    private readonly quarantine: QuarantineQuery,
  ) {}

  @Get('quarantine')
  @ApiOperation({
    summary: 'Tools, prompts and resource templates held back until an operator decides',
    description:
      'Across the gateways the caller sees, the longest held first. Each item names the hash an approval or rejection must give.',
  })
  @ApiOkResponse({ type: QuarantinePageDto })
  @ApiProblems(422)
  queue(
    @Query() query: QuarantineQueryDto,
    @CurrentScope() scope: TeamScope,
  ): Promise<QuarantinePageDto> {
    return this.quarantine.queue(query, scope);
  }

  @Post('gateways/:id/pin')
  @HttpCode(200)
  @ApiOperation({
    summary: "Pin every definition of the gateway's tools, prompts and resource templates",
    description:
      'Each entry not waiting for review is pinned at its current definition: a later change upstream is held back until approved, whatever the gateway’s pinning mode.',
  })
  @ApiOkResponse({ type: PinGatewayResultDto })
  @ApiProblems(400, 404)
  pinGateway(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PinGatewayResultDto> {
    return this.pins.pinGateway(id, scope, principal);
  }
}
