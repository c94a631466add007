import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { MinRole } from '../auth/auth.decorators';
import { type Request, type Response } from 'express';
import { type Page } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { GatewaysService } from '../gateways/gateways.service';
import { PinsService } from '../pinning/pins.service';
import { ToolInvokeDto } from '../tools/dto/tool-invoke.dto';
import { ToolListQueryDto } from '../tools/dto/tool-list-query.dto';
import { type ToolResponseDto } from '../tools/dto/tool-response.dto';
import { ToolUpdateDto } from '../tools/dto/tool-update.dto';
import { ToolInvoker } from '../tools/tool.invoker';
import { ToolsService } from '../tools/tools.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { ASK_LIMIT, AdminToolSearch } from './admin-tool-search';
import { pinView } from './pin-view';
import { pageGateway, pageScope } from './team-field';
import { type FormBody, formCheckbox, formField } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { type InvokeResultView, invokeResultView } from './invoke-result-view';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { argumentsTemplate, checkToolArguments } from './tool-arguments';

/** The test-invoke form's state: what was typed, and what came of it. */
interface InvokeOutcome {
  arguments: string;
  error?: string | null;
  formError?: string | null;
  warning?: string | null;
  result?: InvokeResultView;
}

@AdminController('admin/tools')
@MinRole('operator')
export class AdminToolsController {
  constructor(
    private readonly tools: ToolsService,
    private readonly invoker: ToolInvoker,
    private readonly gateways: GatewaysService,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
    private readonly toolSearch: AdminToolSearch,
    private readonly pins: PinsService,
  ) {}

  /**
   * The REST list with its filters; `?page=N` pages it 25 at a time. `?ask=` ranks tools the way
   * tool_search does, within the gateway filter.
   */
  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const page = pageNumber(query.page);
    const filter = {
      gatewayId: typeof query.gatewayId === 'string' ? query.gatewayId : '',
      q: typeof query.q === 'string' ? query.q : '',
    };
    const submission = await submitForm(
      ToolListQueryDto,
      {
        limit: PAGE_SIZE,
        offset: offsetOf(page),
        ...(filter.gatewayId ? { gatewayId: filter.gatewayId } : {}),
        ...(filter.q.trim() ? { q: filter.q.trim() } : {}),
      },
      {},
      (dto) => this.tools.list(dto, pageScope(request)),
    );
    const result: Page<ToolResponseDto> = submission.ok
      ? submission.result
      : { items: [], total: 0 };
    const gateways = await this.catalog.gatewayNames(pageScope(request));
    const ask = typeof query.ask === 'string' ? query.ask.trim() : '';
    const asked = ask.slice(0, ASK_LIMIT);
    // The search runs over every tool; an operator sees the hits of the gateways they see.
    const visible = new Set(gateways.map((gateway) => gateway.id));
    const hits = (
      asked ? await this.toolSearch.ask(asked, submission.ok ? filter.gatewayId : '') : []
    ).filter((hit) => visible.has(hit.gatewayId));
    await this.pages.render(
      request,
      response,
      'tools',
      {
        title: 'Tools',
        section: 'tools',
        tools: result.items,
        filter,
        filtered: Boolean(filter.gatewayId || filter.q),
        ask: asked,
        asked: asked !== '',
        hits,
        askLimit: ASK_LIMIT,
        gateways: gateways.map((gateway) => ({
          id: gateway.id,
          name: gateway.name,
          selected: gateway.id === filter.gatewayId,
        })),
        pager: pager(page, result.total, (n) => hrefWith('/admin/tools', { ...filter, page: n })),
        errors: submission.ok ? {} : submission.errors.fields,
      },
      submission.ok ? 200 : submission.errors.status,
    );
  }

  @Get(':id')
  async detail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.renderDetail(request, response, await this.tools.get(id, pageScope(request)));
  }

  /** Enable or disable the tool, and switch the Prefab renderer, as `PATCH /api/v1/tools/:id`. */
  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const tool = await this.tools.get(id, pageScope(request));
    const prefab = formCheckbox(body, 'prefab');
    const input: Record<string, unknown> = { enabled: formCheckbox(body, 'enabled') };
    if (prefab !== Boolean(tool.appConfig?.prefab)) input.appConfig = { ...tool.appConfig, prefab };
    const submission = await submitForm(ToolUpdateDto, input, {}, (dto) =>
      this.tools.update(id, dto, pageScope(request)),
    );
    if (!submission.ok) {
      await this.renderDetail(request, response, tool, { settings: submission.errors });
      return;
    }
    this.pages.redirect(request, response, `/admin/tools/${id}`, {
      kind: 'success',
      text: `Tool '${submission.result.name}' saved.`,
    });
  }

  /**
   * `POST /api/v1/tools/:id/invoke`, after checking the JSON arguments against the tool's input
   * schema; the page shows the CallToolResult.
   */
  @Post(':id/invoke')
  async invoke(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const tool = await this.tools.get(id, pageScope(request));
    const text = formField(body, 'arguments');
    const check = checkToolArguments(text, tool.inputSchema);
    if (!check.ok) {
      await this.renderDetail(request, response, tool, {
        invoke: { arguments: text, error: check.error },
        status: 422,
      });
      return;
    }
    const submission = await submitForm(ToolInvokeDto, { arguments: check.arguments }, {}, (dto) =>
      this.invoker.invoke(id, dto.arguments ?? {}, pageScope(request), request.principal!),
    );
    if (!submission.ok) {
      await this.renderDetail(request, response, tool, {
        invoke: {
          arguments: text,
          error: submission.errors.fields.arguments ?? null,
          formError: submission.errors.fields.arguments ? null : submission.errors.message,
        },
        status: submission.errors.status,
      });
      return;
    }
    await this.renderDetail(request, response, tool, {
      invoke: {
        arguments: text,
        warning: check.warning,
        result: invokeResultView(submission.result),
      },
    });
  }

  private async renderDetail(
    request: Request,
    response: Response,
    tool: ToolResponseDto,
    outcome: { settings?: FormErrors; invoke?: InvokeOutcome; status?: number } = {},
  ): Promise<void> {
    await this.pages.render(
      request,
      response,
      'tool',
      {
        title: `Tool ${tool.name}`,
        section: 'tools',
        tool,
        ...(await pageGateway(this.gateways, request, tool.gatewayId)),
        pin: pinView('tool', tool.id, await this.pins.review('tool', tool.id, pageScope(request))),
        settingsError: outcome.settings?.message ?? null,
        invoke: outcome.invoke ?? { arguments: argumentsTemplate(tool.inputSchema) },
      },
      outcome.status ?? outcome.settings?.status ?? 200,
    );
  }
}
