import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { ROLES, roleAtLeast } from '../common/roles';
import { UuidParam } from '../common/uuid-param';
import { type TokenCreatedDto, TokenCreateDto } from '../tokens/dto/token.dto';
import { TokensService } from '../tokens/tokens.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField, formFields } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { pageScope } from './team-field';

interface TokenFormValues {
  name: string;
  kind: string;
  role: string;
  serverIds: string[];
  expiresInDays: string;
}

const EMPTY_FORM: TokenFormValues = {
  name: '',
  kind: 'servers',
  role: 'member',
  serverIds: [],
  expiresInDays: '90',
};

/** Everyone's own API tokens (admins see all): list, create (shown once), revoke. */
@AdminController('admin/tokens')
@MinRole('member')
export class AdminTokensController {
  constructor(
    private readonly tokens: TokensService,
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
    const values: TokenFormValues = {
      name: formField(body, 'name'),
      kind: formField(body, 'kind') === 'role' ? 'role' : 'servers',
      role: formField(body, 'role'),
      serverIds: formFields(body, 'serverIds'),
      expiresInDays: formField(body, 'expiresInDays'),
    };
    const days = Number(values.expiresInDays);
    const input: Record<string, unknown> = {
      name: values.name.trim(),
      ...(values.expiresInDays === ''
        ? {}
        : { expiresInDays: Number.isNaN(days) ? values.expiresInDays : days }),
      ...(values.kind === 'role' ? { role: values.role } : { serverIds: values.serverIds }),
    };
    const submission = await submitForm(TokenCreateDto, input, {}, (dto) =>
      this.tokens.create(request.principal!, dto),
    );
    if (!submission.ok) {
      await this.render(request, response, 1, values, submission.errors);
      return;
    }
    await this.render(request, response, 1, EMPTY_FORM, undefined, submission.result);
  }

  @Post(':id/revoke')
  async revoke(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.tokens.revoke(request.principal!, id);
    this.pages.redirect(request, response, '/admin/tokens', {
      kind: 'success',
      text: 'Token revoked: it no longer works anywhere.',
    });
  }

  private async render(
    request: Request,
    response: Response,
    page: number,
    values: TokenFormValues,
    errors?: FormErrors,
    created?: TokenCreatedDto,
  ): Promise<void> {
    const principal = request.principal!;
    const result = await this.tokens.list(principal, { limit: PAGE_SIZE, offset: offsetOf(page) });
    const servers = await this.catalog.allServers(pageScope(request));
    const names = new Map(servers.map((server) => [server.id, server.name]));
    await this.pages.render(
      request,
      response,
      'tokens',
      {
        title: 'API tokens',
        section: 'tokens',
        tokens: result.items.map((token) => ({
          ...token,
          servers: token.serverIds?.map((id) => names.get(id) ?? id) ?? null,
        })),
        everyone: principal.role === 'admin',
        pager: pager(page, result.total, (n) => hrefWith('/admin/tokens', { page: n })),
        created: created ?? null,
        values,
        roles: ROLES.filter((role) => roleAtLeast(principal.role, role)).map((role) => ({
          value: role,
          selected: role === values.role,
        })),
        servers: servers.map((server) => ({
          id: server.id,
          name: server.name,
          checked: values.serverIds.includes(server.id),
        })),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? (created ? 201 : 200),
    );
  }
}
