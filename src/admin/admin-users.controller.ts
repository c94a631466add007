import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { ROLES } from '../common/roles';
import { TeamScope } from '../auth/team-scope';
import { MAX_PAGE_SIZE } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { TeamsService } from '../teams/teams.service';
import { UserCreateDto, UserUpdateDto } from '../users/dto/user-create.dto';
import { type UserResponseDto } from '../users/dto/user-response.dto';
import { UsersService } from '../users/users.service';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formCheckbox, formField, formFields } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';

interface UserFormValues {
  username: string;
  displayName: string;
  role: string;
  teamIds: string[];
  disabled: boolean;
}

/** Admins only (no MinRole): people, their roles and teams. */
@AdminController('admin/users')
export class AdminUsersController {
  constructor(
    private readonly users: UsersService,
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
    const result = await this.users.list({ limit: PAGE_SIZE, offset: offsetOf(page) });
    const names = await this.teamNames();
    await this.pages.render(request, response, 'users', {
      title: 'Users',
      section: 'users',
      users: result.items.map((user) => ({
        ...user,
        teams: user.teamIds.map((id) => names.get(id) ?? id),
      })),
      pager: pager(page, result.total, (n) => hrefWith('/admin/users', { page: n })),
    });
  }

  @Get('new')
  async newForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.renderForm(request, response, null, {
      username: '',
      displayName: '',
      role: 'member',
      teamIds: [],
      disabled: false,
    });
  }

  @Post()
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const values = formValues(body);
    const submission = await submitForm(
      UserCreateDto,
      {
        username: values.username.trim(),
        displayName: values.displayName,
        password: formField(body, 'password'),
        role: values.role,
        teamIds: values.teamIds,
      },
      {},
      (dto) => this.users.create(dto),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, null, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/users', {
      kind: 'success',
      text: `User '${submission.result.username}' created.`,
    });
  }

  @Get(':id/edit')
  async editForm(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const user = await this.users.get(id);
    await this.renderForm(request, response, user, {
      username: user.username,
      displayName: user.displayName,
      role: user.role,
      teamIds: user.teamIds,
      disabled: user.disabled,
    });
  }

  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const user = await this.users.get(id);
    const values = { ...formValues(body), username: user.username };
    const password = formField(body, 'password');
    const submission = await submitForm(
      UserUpdateDto,
      {
        displayName: values.displayName,
        role: values.role,
        teamIds: values.teamIds,
        disabled: values.disabled,
        ...(password === '' ? {} : { password }),
      },
      {},
      (dto) => this.users.update(id, dto),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, user, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/users', {
      kind: 'success',
      text: `User '${user.username}' saved.`,
    });
  }

  @Get(':id/delete')
  async confirmDelete(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const user = await this.users.get(id);
    await this.pages.render(request, response, 'confirm-delete', {
      title: `Delete user ${user.username}`,
      section: 'users',
      kind: 'user',
      name: user.username,
      action: `/admin/users/${id}/delete`,
      cancel: '/admin/users',
      consequence: 'Their API tokens and OAuth grants stop working at once.',
    });
  }

  @Post(':id/delete')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const user = await this.users.get(id);
    await this.users.remove(id);
    this.pages.redirect(request, response, '/admin/users', {
      kind: 'success',
      text: `User '${user.username}' deleted.`,
    });
  }

  private async teamNames(): Promise<Map<string, string>> {
    const teams = await this.teams.list({ limit: MAX_PAGE_SIZE, offset: 0 }, TeamScope.ALL);
    return new Map(teams.items.map((team) => [team.id, team.name]));
  }

  private async renderForm(
    request: Request,
    response: Response,
    user: UserResponseDto | null,
    values: UserFormValues,
    errors?: FormErrors,
  ): Promise<void> {
    const editing = user !== null;
    const teams = await this.teams.list({ limit: MAX_PAGE_SIZE, offset: 0 }, TeamScope.ALL);
    await this.pages.render(
      request,
      response,
      'user-form',
      {
        title: editing ? `Edit user ${user.username}` : 'Create a user',
        section: 'users',
        user,
        editing,
        action: editing ? `/admin/users/${user.id}` : '/admin/users',
        values,
        roles: ROLES.map((role) => ({ value: role, selected: role === values.role })),
        teams: teams.items.map((team) => ({
          id: team.id,
          name: team.name,
          checked: values.teamIds.includes(team.id),
        })),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}

function formValues(body: FormBody): UserFormValues {
  return {
    username: formField(body, 'username'),
    displayName: formField(body, 'displayName'),
    role: formField(body, 'role'),
    teamIds: formFields(body, 'teamIds'),
    disabled: formCheckbox(body, 'disabled'),
  };
}
