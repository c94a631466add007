import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { TeamScope } from '../auth/team-scope';
import { UuidParam } from '../common/uuid-param';
import { TeamCreateDto, type TeamResponseDto, TeamUpdateDto } from '../teams/dto/team.dto';
import { TeamsService } from '../teams/teams.service';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField } from './form-body';
import { type FormErrors, formErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';

/** Admins only (no MinRole): the teams that own gateways and servers. */
@AdminController('admin/teams')
export class AdminTeamsController {
  constructor(
    private readonly teams: TeamsService,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query('page') rawPage?: string,
  ): Promise<void> {
    const page = pageNumber(rawPage);
    const result = await this.teams.list(
      { limit: PAGE_SIZE, offset: offsetOf(page) },
      TeamScope.ALL,
    );
    await this.pages.render(request, response, 'teams', {
      title: 'Teams',
      section: 'teams',
      teams: result.items,
      pager: pager(page, result.total, (n) => hrefWith('/admin/teams', { page: n })),
    });
  }

  @Get('new')
  async newForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.renderForm(request, response, null, { name: '', description: '' });
  }

  @Post()
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const values = {
      name: formField(body, 'name').trim(),
      description: formField(body, 'description'),
    };
    const submission = await submitForm(TeamCreateDto, values, {}, (dto) => this.teams.create(dto));
    if (!submission.ok) {
      await this.renderForm(request, response, null, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/teams', {
      kind: 'success',
      text: `Team '${submission.result.name}' created. Add people to it on the Users page.`,
    });
  }

  @Get(':id/edit')
  async editForm(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const team = await this.teams.get(id, TeamScope.ALL);
    await this.renderForm(request, response, team, team);
  }

  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const team = await this.teams.get(id, TeamScope.ALL);
    const values = {
      name: formField(body, 'name').trim(),
      description: formField(body, 'description'),
    };
    const submission = await submitForm(TeamUpdateDto, values, {}, (dto) =>
      this.teams.update(id, dto),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, team, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/teams', {
      kind: 'success',
      text: `Team '${submission.result.name}' saved.`,
    });
  }

  @Get(':id/delete')
  async confirmDelete(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const team = await this.teams.get(id, TeamScope.ALL);
    await this.pages.render(request, response, 'confirm-delete', {
      title: `Delete team ${team.name}`,
      section: 'teams',
      kind: 'team',
      name: team.name,
      action: `/admin/teams/${id}/delete`,
      cancel: '/admin/teams',
      consequence: `Its ${team.memberCount} members leave it. A team that still owns gateways or servers cannot be deleted.`,
    });
  }

  @Post(':id/delete')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const team = await this.teams.get(id, TeamScope.ALL);
    try {
      await this.teams.remove(id);
    } catch (error) {
      const failure = formErrors(error);
      if (!failure) throw error;
      this.pages.refuse(
        request,
        response,
        '/admin/teams',
        failure,
        `Team '${team.name}' was not deleted: ${failure.message}`,
      );
      return;
    }
    this.pages.redirect(request, response, '/admin/teams', {
      kind: 'success',
      text: `Team '${team.name}' deleted.`,
    });
  }

  private async renderForm(
    request: Request,
    response: Response,
    team: TeamResponseDto | null,
    values: { name: string; description: string },
    errors?: FormErrors,
  ): Promise<void> {
    const editing = team !== null;
    await this.pages.render(
      request,
      response,
      'team-form',
      {
        title: editing ? `Edit team ${team.name}` : 'Create a team',
        section: 'teams',
        editing,
        action: editing ? `/admin/teams/${team.id}` : '/admin/teams',
        values,
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}
