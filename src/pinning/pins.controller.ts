import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Post,
  Query,
  type Type,
} from '@nestjs/common';
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
import { RescanPageDto, RescanResultDto } from './dto/pin-rescan.dto';
import { QuarantinePageDto, QuarantineQueryDto } from './dto/quarantine.dto';
import { type PinKind } from './pinned-kinds';
import { PinRescans } from './pin-rescans.service';
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

/** How one kind's pin routes read the entry back, as that kind's own API returns it. */
interface PinRoutes<Reader, Response> {
  kind: PinKind;
  /** The class name, which OpenAPI's operation ids are made of. */
  name: string;
  path: string;
  tag: string;
  response: Type<Response>;
  reader: Type<Reader>;
  read(reader: Reader, id: string, scope: TeamScope): Promise<Response>;
}

/**
 * The pin routes of one kind of entry: review, approve, reject and unpin under `<path>/:id`.
 * Operators decide for their teams' gateways, admins for all.
 */
function pinsController<Reader, Response>(routes: PinRoutes<Reader, Response>): Type<unknown> {
  const { kind, response } = routes;

  @ApiTags(routes.tag)
  @MinRole('operator')
  @Controller(routes.path)
  class PinsController {
    constructor(
      private readonly pins: PinsService,
      @Inject(routes.reader) private readonly reader: Reader,
    ) {}

    @Get(':id/pin')
    @ApiOperation(REVIEW)
    @ApiOkResponse({ type: PinReviewDto })
    @ApiProblems(400, 404)
    review(@UuidParam() id: string, @CurrentScope() scope: TeamScope): Promise<PinReviewDto> {
      return this.pins.review(kind, id, scope);
    }

    @Post(':id/approve')
    @HttpCode(200)
    @ApiOperation(APPROVE)
    @ApiOkResponse({ type: response })
    @ApiProblems(400, 404, 409, 422)
    async approve(
      @UuidParam() id: string,
      @Body() dto: PinDecisionDto,
      @CurrentScope() scope: TeamScope,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Response> {
      await this.pins.approve(kind, id, dto.hash, scope, principal);
      return routes.read(this.reader, id, scope);
    }

    @Post(':id/reject')
    @HttpCode(200)
    @ApiOperation(REJECT)
    @ApiOkResponse({ type: response })
    @ApiProblems(400, 404, 409, 422)
    async reject(
      @UuidParam() id: string,
      @Body() dto: PinDecisionDto,
      @CurrentScope() scope: TeamScope,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Response> {
      await this.pins.reject(kind, id, dto.hash, scope, principal);
      return routes.read(this.reader, id, scope);
    }

    @Delete(':id/pin')
    @ApiOperation(UNPIN)
    @ApiOkResponse({ type: response })
    @ApiProblems(400, 404, 409)
    async unpin(
      @UuidParam() id: string,
      @CurrentScope() scope: TeamScope,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Response> {
      await this.pins.unpin(kind, id, scope, principal);
      return routes.read(this.reader, id, scope);
    }
  }
  Object.defineProperty(PinsController, 'name', { value: routes.name });
  return PinsController;
}

export const ToolPinsController = pinsController({
  kind: 'tool',
  name: 'ToolPinsController',
  path: 'api/v1/tools',
  tag: 'tools',
  response: ToolResponseDto,
  reader: ToolsService,
  read: (tools, id, scope) => tools.get(id, scope),
});

export const PromptPinsController = pinsController({
  kind: 'prompt',
  name: 'PromptPinsController',
  path: 'api/v1/prompts',
  tag: 'prompts',
  response: PromptResponseDto,
  reader: PromptsService,
  read: (prompts, id, scope) => prompts.get(id, scope),
});

export const ResourceTemplatePinsController = pinsController({
  kind: 'resource-template',
  name: 'ResourceTemplatePinsController',
  path: 'api/v1/resource-templates',
  tag: 'resources',
  response: ResourceTemplateResponseDto,
  reader: ResourcesService,
  read: (resources, id, scope) => resources.getTemplate(id, scope),
});

const RESCAN =
  'Each tool, prompt and resource template is scanned again (a held change rather than the stored definition) and judged by the gateway’s settings as they are now: what its finding threshold holds is quarantined (reason `finding`), even if it was pinned, until an operator approves it; what was held only for a finding the threshold no longer counts is served. For when the scanner’s rules changed (an upgrade); a change of `pinning` or `quarantineOnFinding` does the same by itself. Audited (`pin.rescan`, and `rescan.quarantine` / `rescan.release` per entry).';

/** The quarantine queue, pinning a whole gateway, and judging definitions again. */
@ApiTags('quarantine')
@MinRole('operator')
@Controller('api/v1')
export class QuarantineController {
  constructor(
    private readonly pins: PinsService,
    private readonly quarantine: QuarantineQuery,
    private readonly rescans: PinRescans,
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

  @Post('gateways/rescan')
  @HttpCode(200)
  @MinRole('admin')
  @ApiOperation({
    summary: 'Scan the definitions of every gateway again (admins)',
    description: `${RESCAN} One gateway after another, each in a transaction of its own.`,
  })
  @ApiOkResponse({ type: RescanPageDto })
  @ApiProblems(403)
  rescanAll(
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RescanPageDto> {
    return this.rescans.rescanAll(scope, principal);
  }

  @Post('gateways/:id/rescan')
  @HttpCode(200)
  @ApiOperation({ summary: "Scan the gateway's definitions again", description: RESCAN })
  @ApiOkResponse({ type: RescanResultDto })
  @ApiProblems(400, 403, 404)
  rescanGateway(
    @UuidParam() id: string,
    @CurrentScope() scope: TeamScope,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RescanResultDto> {
    return this.rescans.rescanGateway(id, scope, principal);
  }
}
