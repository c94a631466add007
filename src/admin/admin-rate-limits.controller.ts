import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { TeamScope } from '../auth/team-scope';
import { UuidParam } from '../common/uuid-param';
import { RateLimitCreateDto } from '../rate-limits/dto/rate-limit-create.dto';
import { RATE_LIMIT_KEYS } from '../rate-limits/rate-limit.entity';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import { ToolsService } from '../tools/tools.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';

interface LimitFormValues {
  per: string;
  serverId: string;
  tool: string;
  points: string;
  windowSeconds: string;
}

const EMPTY_FORM: LimitFormValues = {
  per: 'token',
  serverId: '',
  tool: '',
  points: '60',
  windowSeconds: '60',
};

/** Whole numbers as numbers, anything else as typed, for the DTO's validators to judge. */
function numberOrText(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Rate limits (admins only, as in the API): list, create, delete. */
@AdminController('admin/rate-limits')
export class AdminRateLimitsController {
  constructor(
    private readonly limits: RateLimitsService,
    private readonly tools: ToolsService,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query('page') rawPage?: string,
  ): Promise<void> {
    await this.render(request, response, pageNumber(rawPage), EMPTY_FORM);
  }

  @Post()
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const values: LimitFormValues = {
      per: formField(body, 'per'),
      serverId: formField(body, 'serverId'),
      tool: formField(body, 'tool').trim(),
      points: formField(body, 'points').trim(),
      windowSeconds: formField(body, 'windowSeconds').trim(),
    };
    const own: Record<string, string> = {};
    let toolId: string | null = null;
    if (values.tool !== '') {
      toolId = await this.tools
        .getByName(values.tool, TeamScope.ALL)
        .then((tool) => tool.id)
        .catch(() => null);
      if (toolId === null) own.tool = `No tool is named '${values.tool}'.`;
    }
    const input = {
      per: values.per,
      serverId: values.serverId === '' ? null : values.serverId,
      toolId,
      points: numberOrText(values.points),
      windowSeconds: numberOrText(values.windowSeconds),
    };
    const submission = await submitForm(RateLimitCreateDto, input, { own }, (dto) =>
      this.limits.create(dto),
    );
    if (!submission.ok) {
      await this.render(request, response, 1, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/rate-limits', {
      kind: 'success',
      text: 'Rate limit created; every replica applies it at once.',
    });
  }

  @Post(':id/delete')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.limits.remove(id);
    this.pages.redirect(request, response, '/admin/rate-limits', {
      kind: 'success',
      text: 'Rate limit deleted.',
    });
  }

  private async render(
    request: Request,
    response: Response,
    page: number,
    values: LimitFormValues,
    errors?: FormErrors,
  ): Promise<void> {
    const result = await this.limits.list({ limit: PAGE_SIZE, offset: offsetOf(page) });
    const servers = await this.catalog.allServers(TeamScope.ALL);
    const serverNames = new Map(servers.map((server) => [server.id, server.name]));
    const toolIds = [
      ...new Set(result.items.flatMap((limit) => (limit.toolId ? [limit.toolId] : []))),
    ];
    const toolNames = new Map(
      (await this.tools.getMany(toolIds)).map((tool) => [tool.id, tool.name]),
    );
    await this.pages.render(
      request,
      response,
      'rate-limits',
      {
        title: 'Rate limits',
        section: 'rate-limits',
        limits: result.items.map((limit) => ({
          ...limit,
          server: limit.serverId ? (serverNames.get(limit.serverId) ?? limit.serverId) : null,
          tool: limit.toolId ? (toolNames.get(limit.toolId) ?? limit.toolId) : limit.toolName,
        })),
        pager: pager(page, result.total, (n) => hrefWith('/admin/rate-limits', { page: n })),
        values,
        pers: RATE_LIMIT_KEYS.map((per) => ({ value: per, selected: per === values.per })),
        servers: servers.map((server) => ({
          id: server.id,
          name: server.name,
          selected: server.id === values.serverId,
        })),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}
