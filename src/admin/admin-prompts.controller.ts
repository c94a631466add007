import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { UuidParam } from '../common/uuid-param';
import { GatewaysService } from '../gateways/gateways.service';
import { PinsService } from '../pinning/pins.service';
import { PromptListQueryDto } from '../prompts/dto/prompt-list-query.dto';
import { type PromptResponseDto } from '../prompts/dto/prompt-response.dto';
import { PromptUpdateDto } from '../prompts/dto/prompt-update.dto';
import { PromptsService } from '../prompts/prompts.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formCheckbox } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { listFilter } from './list-filter';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { pinView } from './pin-view';
import { pageGateway, pageScope } from './team-field';

/**
 * Operators see the entries of their teams' and global gateways, and enable or disable their
 * teams' ones.
 */
@MinRole('operator')
@AdminController('admin/prompts')
export class AdminPromptsController {
  constructor(
    private readonly prompts: PromptsService,
    private readonly gateways: GatewaysService,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
    private readonly pins: PinsService,
  ) {}

  /** The REST list with its filters; `?page=N` pages it 25 at a time. */
  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const filter = listFilter(query);
    const page = pageNumber(query.page);
    const submission = await submitForm(
      PromptListQueryDto,
      { ...filter.input, limit: PAGE_SIZE, offset: offsetOf(page) },
      {},
      (dto) => this.prompts.list(dto, pageScope(request)),
    );
    const gateways = await this.catalog.gatewayNames(pageScope(request));
    await this.pages.render(
      request,
      response,
      'prompts',
      {
        title: 'Prompts',
        section: 'prompts',
        prompts: submission.ok ? submission.result.items : [],
        filter: filter.values,
        filtered: filter.active,
        gateways: gateways.map((gateway) => ({
          ...gateway,
          selected: gateway.id === filter.values.gatewayId,
        })),
        pager: pager(page, submission.ok ? submission.result.total : 0, (n) =>
          hrefWith('/admin/prompts', { ...filter.values, page: n }),
        ),
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
    await this.renderDetail(request, response, await this.prompts.get(id, pageScope(request)));
  }

  /** Enable or disable the prompt, as `PATCH /api/v1/prompts/:id`. */
  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const prompt = await this.prompts.get(id, pageScope(request));
    const submission = await submitForm(
      PromptUpdateDto,
      { enabled: formCheckbox(body, 'enabled') },
      {},
      (dto) => this.prompts.update(id, dto, pageScope(request)),
    );
    if (!submission.ok) {
      await this.renderDetail(request, response, prompt, submission.errors);
      return;
    }
    this.pages.redirect(request, response, `/admin/prompts/${id}`, {
      kind: 'success',
      text: `Prompt '${submission.result.name}' saved.`,
    });
  }

  private async renderDetail(
    request: Request,
    response: Response,
    prompt: PromptResponseDto,
    errors?: FormErrors,
  ): Promise<void> {
    await this.pages.render(
      request,
      response,
      'prompt',
      {
        title: `Prompt ${prompt.name}`,
        section: 'prompts',
        prompt,
        ...(await pageGateway(this.gateways, request, prompt.gatewayId)),
        pin: pinView(
          'prompt',
          prompt.id,
          await this.pins.review('prompt', prompt.id, pageScope(request)),
        ),
        settingsError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}
