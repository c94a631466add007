import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { roleAtLeast } from '../common/roles';
import { type IssuedToken } from '../auth/token.service';
import { MAX_PAGE_SIZE } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { ServerCreateDto } from '../servers/dto/server-create.dto';
import { type ServerResponseDto } from '../servers/dto/server-response.dto';
import { ServerTokenRequestDto } from '../servers/dto/server-token-request.dto';
import { ServerUpdateDto } from '../servers/dto/server-update.dto';
import { ServersService } from '../servers/servers.service';
import { ServerToolOverridesService } from '../servers/server-tool-overrides.service';
import { ServerHooksService } from '../policies/server-hooks.service';
import { PromptsService } from '../prompts/prompts.service';
import { ResourcesService } from '../resources/resources.service';
import { TeamsService } from '../teams/teams.service';
import { ToolsService } from '../tools/tools.service';
import { AdminController } from './admin-controller.decorator';
import { clientSetups } from './client-setups';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { pageScope, teamChoices, withTeamInput } from './team-field';
import {
  emptyServerForm,
  CLIENT_ERA_OPTIONS,
  NAMING_OPTIONS,
  pickerQueries,
  SERVER_FIELD_ALIASES,
  serverFormOf,
  serverFormValues,
  serverFormIntent,
  type ServerFormValues,
  serverInput,
} from './server-form';
import { type PickerKindName } from './member-picker';
import { ServerPickersBuilder } from './server-pickers';

/** Choices for a server token's lifetime; empty means TOKEN_TTL_SECONDS. */
const TOKEN_LIFETIMES = [
  { seconds: '', label: 'Default (TOKEN_TTL_SECONDS)' },
  { seconds: String(3600), label: '1 hour' },
  { seconds: String(24 * 3600), label: '1 day' },
  { seconds: String(30 * 24 * 3600), label: '30 days' },
  { seconds: String(365 * 24 * 3600), label: '1 year' },
];

/** Members see their servers and issue tokens for them; operators manage their teams' servers. */
@AdminController('admin/servers')
@MinRole('member')
export class AdminServersController {
  constructor(
    private readonly servers: ServersService,
    private readonly tools: ToolsService,
    private readonly resources: ResourcesService,
    private readonly prompts: PromptsService,
    private readonly pickers: ServerPickersBuilder,
    private readonly pages: AdminPages,
    private readonly teams: TeamsService,
    private readonly overrides: ServerToolOverridesService,
    private readonly hooks: ServerHooksService,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query('page') rawPage?: string,
  ): Promise<void> {
    const page = pageNumber(rawPage);
    const scope = pageScope(request);
    const result = await this.servers.list({ limit: PAGE_SIZE, offset: offsetOf(page) }, scope);
    await this.pages.render(request, response, 'servers', {
      title: 'Servers',
      section: 'servers',
      servers: result.items.map((server) => ({
        ...server,
        manageable:
          scope.canManage(server.teamId) && roleAtLeast(request.principal!.role, 'operator'),
      })),
      mayCreate: roleAtLeast(request.principal!.role, 'operator'),
      pager: pager(page, result.total, (n) => hrefWith('/admin/servers', { page: n })),
    });
  }

  @Get('new')
  @MinRole('operator')
  async newForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.renderForm(request, response, null, emptyServerForm());
  }

  @Post()
  @MinRole('operator')
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    await this.save(request, response, body, null);
  }

  @Get(':id')
  async detail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.renderDetail(request, response, await this.servers.get(id, pageScope(request)));
  }

  /**
   * `POST /api/v1/servers/:id/tokens`. The token is shown on this response only: it is never
   * stored, and never put in a redirect or flash cookie.
   */
  @Post(':id/tokens')
  async issueToken(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const server = await this.servers.get(id, pageScope(request));
    const ttl = formField(body, 'ttlSeconds');
    const submission = await submitForm(
      ServerTokenRequestDto,
      ttl === '' ? {} : { ttlSeconds: Number(ttl) },
      {},
      (dto) => this.servers.issueToken(id, request.principal!, dto.ttlSeconds),
    );
    await this.renderDetail(
      request,
      response,
      server,
      submission.ok ? { issued: submission.result } : { tokenError: submission.errors },
    );
  }

  private async renderDetail(
    request: Request,
    response: Response,
    server: ServerResponseDto,
    outcome: { issued?: IssuedToken; tokenError?: FormErrors } = {},
  ): Promise<void> {
    const tools = await this.tools.getMany(server.toolIds);
    const overrides = await this.overrides.list(server.id, pageScope(request));
    const toolNames = new Map(tools.map((tool) => [tool.id, tool.name]));
    await this.pages.render(
      request,
      response,
      'server',
      {
        title: `Server ${server.name}`,
        section: 'servers',
        server,
        manageable:
          pageScope(request).canManage(server.teamId) &&
          roleAtLeast(request.principal!.role, 'operator'),
        teamName: await this.teamName(server.teamId),
        tools,
        overrides: overrides.items.map((override) => ({
          ...override,
          tool: toolNames.get(override.toolId) ?? override.toolId,
        })),
        hooks: (await this.hooks.get(server.id, pageScope(request))).hooks,
        resources: await this.resources.getMany(server.resourceIds),
        resourceTemplates: await this.resources.getManyTemplates(server.resourceTemplateIds),
        prompts: await this.prompts.getMany(server.promptIds),
        lifetimes: TOKEN_LIFETIMES,
        issued: outcome.issued ?? null,
        setups: clientSetups({
          serverName: server.name,
          mcpUrl: server.mcpUrl,
          token: outcome.issued?.accessToken ?? null,
        }),
        tokenError: outcome.tokenError?.fields.ttlSeconds ?? outcome.tokenError?.message ?? null,
      },
      outcome.tokenError?.status ?? 200,
    );
  }

  @Get(':id/edit')
  @MinRole('operator')
  async editForm(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const server = await this.manageable(request, id);
    await this.renderForm(request, response, server, serverFormOf(server));
  }

  @Post(':id')
  @MinRole('operator')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    await this.save(request, response, body, await this.manageable(request, id));
  }

  /** Creates (`server` null) or edits a server from the form, or runs the picker's search. */
  private async save(
    request: Request,
    response: Response,
    body: FormBody,
    server: ServerResponseDto | null,
  ): Promise<void> {
    const values = serverFormValues(body);
    if (serverFormIntent(body) === 'search') {
      await this.renderForm(request, response, server, values, undefined, pickerQueries(body));
      return;
    }
    const input = withTeamInput(body, serverInput(values));
    const options = { aliases: SERVER_FIELD_ALIASES };
    const scope = pageScope(request);
    const submission = server
      ? await submitForm(ServerUpdateDto, input, options, (dto) =>
          this.servers.update(server.id, dto, scope),
        )
      : await submitForm(ServerCreateDto, input, options, (dto) => this.servers.create(dto, scope));
    if (!submission.ok) {
      await this.renderForm(
        request,
        response,
        server,
        values,
        submission.errors,
        pickerQueries(body),
      );
      return;
    }
    const saved = submission.result;
    this.pages.redirect(request, response, `/admin/servers/${saved.id}`, {
      kind: 'success',
      text: server
        ? `Server '${saved.name}' saved.`
        : `Server '${saved.name}' created with ${saved.toolIds.length} tools.`,
    });
  }

  @Get(':id/delete')
  @MinRole('operator')
  async confirmDelete(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const server = await this.manageable(request, id);
    await this.pages.render(request, response, 'confirm-delete', {
      title: `Delete server ${server.name}`,
      section: 'servers',
      kind: 'server',
      name: server.name,
      action: `/admin/servers/${id}/delete`,
      cancel: `/admin/servers/${id}`,
      consequence: `Clients of ${server.mcpUrl} lose access. Its tools stay registered.`,
    });
  }

  @Post(':id/delete')
  @MinRole('operator')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const server = await this.manageable(request, id);
    await this.servers.remove(id, pageScope(request));
    this.pages.redirect(request, response, '/admin/servers', {
      kind: 'success',
      text: `Server '${server.name}' deleted.`,
    });
  }

  /** The server, if the signed-in user may change it (404 or 403 otherwise). */
  private async manageable(request: Request, id: string): Promise<ServerResponseDto> {
    const scope = pageScope(request);
    const server = await this.servers.get(id, scope);
    scope.assertManage(server.teamId, `Server '${server.name}'`);
    return server;
  }

  private async teamName(teamId: string | null): Promise<string | null> {
    return teamId === null ? null : ((await this.teams.names([teamId])).get(teamId) ?? null);
  }

  private async renderForm(
    request: Request,
    response: Response,
    server: ServerResponseDto | null,
    values: ServerFormValues,
    errors?: FormErrors,
    queries: Record<PickerKindName, string> = {
      tools: '',
      resources: '',
      resourceTemplates: '',
      prompts: '',
    },
  ): Promise<void> {
    const editing = server !== null;
    await this.pages.render(
      request,
      response,
      'server-form',
      {
        title: editing ? `Edit server ${server.name}` : 'Create a server',
        section: 'servers',
        server,
        editing,
        action: editing ? `/admin/servers/${server.id}` : '/admin/servers',
        cancel: editing ? `/admin/servers/${server.id}` : '/admin/servers',
        values,
        teams: teamChoices(
          pageScope(request),
          (await this.teams.list({ limit: MAX_PAGE_SIZE, offset: 0 }, pageScope(request))).items,
          values.teamId ?? server?.teamId ?? null,
        ),
        namingOptions: NAMING_OPTIONS.map((option) => ({
          ...option,
          selected: option.value === (values.naming || server?.naming || 'prefixed'),
        })),
        clientEraOptions: CLIENT_ERA_OPTIONS.map((option) => ({
          ...option,
          selected: option.value === (values.clientEras || server?.clientEras || 'any'),
        })),
        pickers: await this.pickers.build(values, queries, pageScope(request)),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}
