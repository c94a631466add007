import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { UpstreamSettings } from '../config/slices/upstream.settings';
import { MAX_PAGE_SIZE } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { GatewayCreateDto } from '../gateways/dto/gateway-create.dto';
import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { GatewayUpdateDto } from '../gateways/dto/gateway-update.dto';
import { GatewaysService } from '../gateways/gateways.service';
import { type SyncReport } from '../sync-report/sync-report';
import { type RescanResultDto } from '../pinning/dto/pin-rescan.dto';
import { PinRescans } from '../pinning/pin-rescans.service';
import { PinsService } from '../pinning/pins.service';
import { QuarantineQuery } from '../pinning/quarantine.query';
import { PromptsService } from '../prompts/prompts.service';
import { ResourcesService } from '../resources/resources.service';
import { SyncService } from '../sync/sync.service';
import { TeamsService } from '../teams/teams.service';
import { ToolsService } from '../tools/tools.service';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type Flash } from './flash.service';
import { type FormBody, formField } from './form-body';
import { type FormErrors, formErrors } from './form-errors';
import { submitForm } from './form-submission';
import {
  authOptions,
  eraPinOptions,
  findingOptions,
  GATEWAY_FIELD_ALIASES,
  gatewayFormOf,
  gatewayFormValues,
  type GatewayFormValues,
  gatewayInput,
  oauthModeOptions,
  pinningOptions,
  TRANSPORT_OPTIONS,
} from './gateway-form';
import { safeNext } from './login-redirect';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { syncReportView } from './sync-report-view';
import { pageScope, teamChoices, withTeamInput } from './team-field';
import { plural } from './view-helpers';
import { exchangeClientAuthOptions, exchangeDialectOptions } from './gateway-form-exchange';

@AdminController('admin/gateways')
@MinRole('operator')
export class AdminGatewaysController {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly tools: ToolsService,
    private readonly resources: ResourcesService,
    private readonly prompts: PromptsService,
    private readonly sync: SyncService,
    private readonly pages: AdminPages,
    private readonly teams: TeamsService,
    private readonly config: UpstreamSettings,
    private readonly pins: PinsService,
    private readonly quarantine: QuarantineQuery,
    private readonly rescans: PinRescans,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query('page') rawPage?: string,
  ): Promise<void> {
    const page = pageNumber(rawPage);
    const scope = pageScope(request);
    const result = await this.gateways.list({ limit: PAGE_SIZE, offset: offsetOf(page) }, scope);
    await this.pages.render(request, response, 'gateways', {
      title: 'Gateways',
      section: 'gateways',
      gateways: result.items.map((gateway) => ({
        ...gateway,
        manageable: scope.canManage(gateway.teamId),
      })),
      pager: pager(page, result.total, (n) => hrefWith('/admin/gateways', { page: n })),
      returnTo: hrefWith('/admin/gateways', { page }),
    });
  }

  @Get('new')
  async newForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    // An empty form: every field at its default.
    await this.renderForm(request, response, null, gatewayFormValues({}));
  }

  @Post()
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const { input, errors: own } = gatewayInput(body, false);
    const submission = await submitForm(
      GatewayCreateDto,
      withTeamInput(body, input),
      { own, aliases: GATEWAY_FIELD_ALIASES },
      (dto) => this.gateways.create(dto, pageScope(request)),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, null, gatewayFormValues(body), submission.errors);
      return;
    }
    const gateway = submission.result;
    this.pages.redirect(
      request,
      response,
      `/admin/gateways/${gateway.id}`,
      registrationFlash(gateway),
    );
  }

  @Get(':id')
  async detail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Query('page') rawPage?: string,
  ): Promise<void> {
    const scope = pageScope(request);
    const gateway = await this.gateways.get(id, scope);
    const page = pageNumber(rawPage);
    const tools = await this.tools.list(
      { gatewayId: id, limit: PAGE_SIZE, offset: offsetOf(page) },
      scope,
    );
    const count = { gatewayId: id, limit: 1, offset: 0 };
    await this.pages.render(request, response, 'gateway', {
      title: `Gateway ${gateway.name}`,
      section: 'gateways',
      gateway: { ...gateway, manageable: scope.canManage(gateway.teamId) },
      teamName: await this.teamName(gateway.teamId),
      counts: {
        prompts: (await this.prompts.list(count, scope)).total,
        resources: (await this.resources.list(count, scope)).total,
        resourceTemplates: (await this.resources.listTemplates(count, scope)).total,
        quarantined: await this.quarantine.count(scope, id),
      },
      report: syncReportView(gateway.lastSyncReport),
      processes: gateway.transport === 'stdio' ? await this.gateways.processes(id, scope) : null,
      tools: tools.items,
      pager: pager(page, tools.total, (n) => hrefWith(`/admin/gateways/${id}`, { page: n })),
      returnTo: `/admin/gateways/${id}`,
    });
  }

  @Get(':id/edit')
  async editForm(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    await this.renderForm(request, response, gateway, gatewayFormOf(gateway));
  }

  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    const { input, errors: own } = gatewayInput(body, true);
    const submission = await submitForm(
      GatewayUpdateDto,
      withTeamInput(body, input),
      { own, aliases: GATEWAY_FIELD_ALIASES },
      (dto) => this.gateways.update(id, dto, pageScope(request)),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, gateway, gatewayFormValues(body), submission.errors);
      return;
    }
    this.pages.redirect(request, response, `/admin/gateways/${id}`, {
      kind: 'success',
      text: `Gateway '${submission.result.name}' saved.`,
    });
  }

  @Post(':id/activate')
  async activate(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const gateway = await this.gateways.setEnabled(id, true, pageScope(request));
    this.pages.redirect(request, response, this.returnTo(body, id), {
      kind: 'success',
      text: `Gateway '${gateway.name}' activated: its tools are served again.`,
    });
  }

  @Post(':id/deactivate')
  async deactivate(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const gateway = await this.gateways.setEnabled(id, false, pageScope(request));
    this.pages.redirect(request, response, this.returnTo(body, id), {
      kind: 'success',
      text: `Gateway '${gateway.name}' deactivated: its tools are hidden from MCP clients and kept.`,
    });
  }

  /** `POST /api/v1/gateways/:id/sync`; the gateway's page then shows the report as a diff. */
  @Post(':id/sync')
  async syncNow(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    let report: SyncReport;
    try {
      report = await this.sync.syncNow(id);
    } catch (error) {
      const failure = formErrors(error);
      if (!failure) throw error;
      this.pages.refuse(
        request,
        response,
        `/admin/gateways/${id}`,
        failure,
        `Sync of '${gateway.name}' failed: ${failure.message}`,
      );
      return;
    }
    this.pages.redirect(request, response, `/admin/gateways/${id}#last-sync`, {
      kind: 'success',
      text: `Synced '${gateway.name}': ${syncReportView(report)!.summary}.`,
    });
  }

  /** `POST /api/v1/gateways/:id/pin`: every definition not waiting for review is pinned. */
  @Post(':id/pin')
  async pinAll(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    const pinned = await this.pins.pinGateway(id, pageScope(request), request.principal!);
    this.pages.redirect(request, response, `/admin/gateways/${id}`, {
      kind: 'success',
      text: `Pinned the definitions of '${gateway.name}': ${plural(pinned.tools, 'tool')}, ${plural(pinned.prompts, 'prompt')}, ${plural(pinned.resourceTemplates, 'resource template')} newly pinned.`,
    });
  }

  /** `POST /api/v1/gateways/:id/rescan`: every definition scanned and judged again. */
  @Post(':id/rescan')
  async rescan(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    const result = await this.rescans.rescanGateway(id, pageScope(request), request.principal!);
    this.pages.redirect(request, response, `/admin/gateways/${id}`, {
      kind: result.quarantined.length > 0 ? 'error' : 'success',
      text: `Scanned the definitions of '${gateway.name}' again: ${rescanSummary(result)}.`,
    });
  }

  @Get(':id/delete')
  async confirmDelete(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    await this.pages.render(request, response, 'confirm-delete', {
      title: `Delete gateway ${gateway.name}`,
      section: 'gateways',
      kind: 'gateway',
      name: gateway.name,
      action: `/admin/gateways/${id}/delete`,
      cancel: `/admin/gateways/${id}`,
      consequence: `Its ${gateway.toolCount} stored tools are deleted too, and leave every virtual server that served them.`,
    });
  }

  @Post(':id/delete')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const gateway = await this.manageable(request, id);
    await this.gateways.remove(id, pageScope(request));
    this.pages.redirect(request, response, '/admin/gateways', {
      kind: 'success',
      text: `Gateway '${gateway.name}' deleted.`,
    });
  }

  /** The gateway, if the signed-in user may change it (404 or 403 otherwise). */
  private async manageable(request: Request, id: string): Promise<GatewayResponseDto> {
    const scope = pageScope(request);
    await this.gateways.manageable(id, scope);
    return this.gateways.get(id, scope);
  }

  private async teamName(teamId: string | null): Promise<string | null> {
    return teamId === null ? null : ((await this.teams.names([teamId])).get(teamId) ?? null);
  }

  private returnTo(body: FormBody, id: string): string {
    const requested = safeNext(formField(body, 'returnTo'));
    return requested === '/admin' ? `/admin/gateways/${id}` : requested;
  }

  private async renderForm(
    request: Request,
    response: Response,
    gateway: GatewayResponseDto | null,
    values: GatewayFormValues,
    errors?: FormErrors,
  ): Promise<void> {
    const editing = gateway !== null;
    await this.pages.render(
      request,
      response,
      'gateway-form',
      {
        title: editing ? `Edit gateway ${gateway.name}` : 'Register a gateway',
        section: 'gateways',
        gateway,
        editing,
        action: editing ? `/admin/gateways/${gateway.id}` : '/admin/gateways',
        cancel: editing ? `/admin/gateways/${gateway.id}` : '/admin/gateways',
        values,
        transports: TRANSPORT_OPTIONS.map((option) => ({
          ...option,
          selected: option.value === values.transport,
        })),
        authOptions: authOptions(editing, values.authType),
        oauthModes: oauthModeOptions(values.oauthMode),
        exchangeDialects: exchangeDialectOptions(values.exchangeDialect),
        exchangeClientAuths: exchangeClientAuthOptions(values.exchangeClientAuth),
        pinningModes: pinningOptions(values.pinning),
        findingThresholds: findingOptions(values.quarantineOnFinding),
        eraPins: eraPinOptions(values.eraPin),
        stdio: { commands: this.config.stdioCommands.join(', ') },
        teams: teamChoices(
          pageScope(request),
          (await this.teams.list({ limit: MAX_PAGE_SIZE, offset: 0 }, pageScope(request))).items,
          formTeam(values, gateway),
        ),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}

/** What the first sync, which registration waits a few seconds for, came to. */
function registrationFlash(gateway: GatewayResponseDto): Flash {
  switch (gateway.status) {
    case 'healthy':
      return {
        kind: 'success',
        text: `Gateway '${gateway.name}' registered with ${plural(gateway.toolCount, 'tool')}.`,
      };
    case 'unreachable':
      return {
        kind: 'error',
        text: `Gateway '${gateway.name}' registered, but its upstream did not answer: ${gateway.lastError ?? 'no reason given'}`,
      };
    case 'failing':
      return {
        kind: 'error',
        text: `Gateway '${gateway.name}' registered, but its upstream answered with an error: ${gateway.lastError ?? 'no reason given'}`,
      };
    case 'incompatible':
      return {
        kind: 'error',
        text: `Gateway '${gateway.name}' registered, but ${gateway.lastError ?? 'its upstream speaks no version of MCP Portico speaks'}.`,
      };
    case 'unknown':
      return {
        kind: 'info',
        text: `Gateway '${gateway.name}' registered; its first sync is still running. Reload to see its tools.`,
      };
  }
}

/** What a rescan of one gateway did, in a sentence. */
export function rescanSummary(result: RescanResultDto): string {
  const names = (entries: RescanResultDto['quarantined']) =>
    entries.length === 0
      ? ''
      : ` (${entries
          .slice(0, 10)
          .map((entry) => entry.name.slice(0, 80))
          .join(', ')}${entries.length > 10 ? ', …' : ''})`;
  return `${plural(result.scanned, 'definition')}, ${result.withFindings} with findings; ${result.quarantined.length} quarantined${names(result.quarantined)}, ${result.released.length} released${names(result.released)}`;
}

/** The team the form shows chosen: what was submitted, else the gateway's own. */
function formTeam(values: GatewayFormValues, gateway: GatewayResponseDto | null): string | null {
  return values.teamId ?? gateway?.teamId ?? null;
}
