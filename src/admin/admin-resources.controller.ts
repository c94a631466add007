import { PinsService } from '../pinning/pins.service';
import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { UuidParam } from '../common/uuid-param';
import { GatewaysService } from '../gateways/gateways.service';
import { ResourceListQueryDto } from '../resources/dto/resource-list-query.dto';
import {
  type ResourceResponseDto,
  type ResourceTemplateResponseDto,
} from '../resources/dto/resource-response.dto';
import { ResourceUpdateDto } from '../resources/dto/resource-update.dto';
import { ResourcesService } from '../resources/resources.service';
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
 * Resources and resource templates: one list page with both, a page for each entry. Operators see
 * the entries of their teams' and global gateways, and enable or disable their teams' ones.
 */
@MinRole('operator')
@AdminController('admin/resources')
export class AdminResourcesController {
  constructor(
    private readonly resources: ResourcesService,
    private readonly gateways: GatewaysService,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
    private readonly pins: PinsService,
  ) {}

  /** Both lists under one filter, each paged on its own (`?page=N`, `?templatesPage=N`). */
  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const filter = listFilter(query);
    const page = pageNumber(query.page);
    const templatesPage = pageNumber(query.templatesPage);
    const run = <R>(offset: number, action: (dto: ResourceListQueryDto) => Promise<R>) =>
      submitForm(ResourceListQueryDto, { ...filter.input, limit: PAGE_SIZE, offset }, {}, action);
    const resources = await run(offsetOf(page), (dto) =>
      this.resources.list(dto, pageScope(request)),
    );
    const templates = await run(offsetOf(templatesPage), (dto) =>
      this.resources.listTemplates(dto, pageScope(request)),
    );
    const href = (params: { page: number; templatesPage: number }) =>
      hrefWith('/admin/resources', {
        ...filter.values,
        page: params.page,
        templatesPage: params.templatesPage > 1 ? params.templatesPage : undefined,
      });
    const gateways = await this.catalog.gatewayNames(pageScope(request));
    await this.pages.render(
      request,
      response,
      'resources',
      {
        title: 'Resources',
        section: 'resources',
        resources: resources.ok ? resources.result.items : [],
        templates: templates.ok ? templates.result.items : [],
        filter: filter.values,
        filtered: filter.active,
        gateways: gateways.map((gateway) => ({
          ...gateway,
          selected: gateway.id === filter.values.gatewayId,
        })),
        pager: pager(page, resources.ok ? resources.result.total : 0, (n) =>
          href({ page: n, templatesPage }),
        ),
        templatesPager: pager(templatesPage, templates.ok ? templates.result.total : 0, (n) =>
          href({ page, templatesPage: n }),
        ),
        errors: resources.ok ? {} : resources.errors.fields,
      },
      resources.ok ? 200 : resources.errors.status,
    );
  }

  @Get('templates/:id')
  async templateDetail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.renderTemplate(
      request,
      response,
      await this.resources.getTemplate(id, pageScope(request)),
    );
  }

  /** Enable or disable the template, as `PATCH /api/v1/resource-templates/:id`. */
  @Post('templates/:id')
  async updateTemplate(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const template = await this.resources.getTemplate(id, pageScope(request));
    const submission = await submitForm(
      ResourceUpdateDto,
      { enabled: formCheckbox(body, 'enabled') },
      {},
      (dto) => this.resources.updateTemplate(id, dto, pageScope(request)),
    );
    if (!submission.ok) {
      await this.renderTemplate(request, response, template, submission.errors);
      return;
    }
    this.pages.redirect(request, response, `/admin/resources/templates/${id}`, {
      kind: 'success',
      text: `Resource template '${submission.result.uriTemplate}' saved.`,
    });
  }

  @Get(':id')
  async detail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.renderResource(request, response, await this.resources.get(id, pageScope(request)));
  }

  /** Enable or disable the resource, as `PATCH /api/v1/resources/:id`. */
  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const resource = await this.resources.get(id, pageScope(request));
    const submission = await submitForm(
      ResourceUpdateDto,
      { enabled: formCheckbox(body, 'enabled') },
      {},
      (dto) => this.resources.update(id, dto, pageScope(request)),
    );
    if (!submission.ok) {
      await this.renderResource(request, response, resource, submission.errors);
      return;
    }
    this.pages.redirect(request, response, `/admin/resources/${id}`, {
      kind: 'success',
      text: `Resource '${submission.result.uri}' saved.`,
    });
  }

  private async renderResource(
    request: Request,
    response: Response,
    resource: ResourceResponseDto,
    errors?: FormErrors,
  ): Promise<void> {
    await this.pages.render(
      request,
      response,
      'resource',
      {
        title: `Resource ${resource.uri}`,
        section: 'resources',
        resource,
        ...(await pageGateway(this.gateways, request, resource.gatewayId)),
        settingsError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }

  private async renderTemplate(
    request: Request,
    response: Response,
    template: ResourceTemplateResponseDto,
    errors?: FormErrors,
  ): Promise<void> {
    await this.pages.render(
      request,
      response,
      'resource-template',
      {
        title: `Resource template ${template.uriTemplate}`,
        section: 'resources',
        template,
        ...(await pageGateway(this.gateways, request, template.gatewayId)),
        pin: pinView(
          'resource-template',
          template.id,
          await this.pins.review('resource-template', template.id, pageScope(request)),
        ),
        settingsError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}
