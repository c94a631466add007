import { Body, Get, Post, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { TeamScope } from '../auth/team-scope';
import { UuidParam } from '../common/uuid-param';
import { ConsolidatedToolsService } from '../consolidated-tools/consolidated-tools.service';
import { ConsolidatedToolCreateDto } from '../consolidated-tools/dto/consolidated-tool.dto';
import { ToolsService } from '../tools/tools.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField, formFields, formLines } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';

interface ConsolidatedFormValues {
  name: string;
  description: string;
  /** One target a line: its label, then the member tool's virtual name. */
  members: string;
  serverIds: string[];
}

const EMPTY_FORM: ConsolidatedFormValues = {
  name: '',
  description: '',
  members: '',
  serverIds: [],
};

/** Consolidated tools (admins only, as in the API): list with drift, create, delete. */
@AdminController('admin/consolidated-tools')
export class AdminConsolidatedToolsController {
  constructor(
    private readonly consolidated: ConsolidatedToolsService,
    private readonly tools: ToolsService,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async list(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.render(request, response, EMPTY_FORM);
  }

  @Post()
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const values: ConsolidatedFormValues = {
      name: formField(body, 'name').trim(),
      description: formField(body, 'description'),
      members: formField(body, 'members'),
      serverIds: formFields(body, 'serverIds'),
    };
    const own: Record<string, string> = {};
    const members: { target: string; toolId: string }[] = [];
    for (const line of formLines(body, 'members')) {
      const [target, toolName, ...rest] = line.trim().split(/\s+/);
      if (!target || !toolName || rest.length > 0) {
        own.members = `Write each target as its label and a tool's name: '${line.slice(0, 80)}' is not.`;
        break;
      }
      const toolId = await this.tools
        .getByName(toolName, TeamScope.ALL)
        .then((tool) => tool.id)
        .catch(() => null);
      if (toolId === null) {
        own.members = `No tool is named '${toolName.slice(0, 128)}'.`;
        break;
      }
      members.push({ target, toolId });
    }
    const input = {
      name: values.name,
      ...(values.description.trim() === '' ? {} : { description: values.description }),
      members,
      serverIds: values.serverIds,
    };
    const submission = await submitForm(ConsolidatedToolCreateDto, input, { own }, (dto) =>
      this.consolidated.create(dto),
    );
    if (!submission.ok) {
      await this.render(request, response, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/consolidated-tools', {
      kind: 'success',
      text: `Consolidated tool '${submission.result.name}' created.`,
    });
  }

  @Post(':id/delete')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    await this.consolidated.remove(id);
    this.pages.redirect(request, response, '/admin/consolidated-tools', {
      kind: 'success',
      text: 'Consolidated tool deleted; its member tools stay.',
    });
  }

  private async render(
    request: Request,
    response: Response,
    values: ConsolidatedFormValues,
    errors?: FormErrors,
  ): Promise<void> {
    const [{ items }, servers] = await Promise.all([
      this.consolidated.list(),
      this.catalog.allServers(TeamScope.ALL),
    ]);
    const serverNames = new Map(servers.map((server) => [server.id, server.name]));
    await this.pages.render(
      request,
      response,
      'consolidated-tools',
      {
        title: 'Consolidated tools',
        section: 'consolidated-tools',
        tools: items.map((tool) => ({
          ...tool,
          servers: tool.serverIds.map((id) => serverNames.get(id) ?? id),
        })),
        values,
        servers: servers.map((server) => ({
          id: server.id,
          name: server.name,
          checked: values.serverIds.includes(server.id),
        })),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}
