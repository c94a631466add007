import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { TeamScope } from '../auth/team-scope';
import { UuidParam } from '../common/uuid-param';
import { PolicyCreateDto } from '../policies/dto/policy-create.dto';
import {
  PolicyDryRunDto,
  type PolicyDryRunResultDto,
} from '../policy-dry-run/dto/policy-dry-run.dto';
import { type PolicyResponseDto } from '../policies/dto/policy-response.dto';
import { PolicyUpdateDto } from '../policies/dto/policy-update.dto';
import { PoliciesService } from '../policies/policies.service';
import { PolicyDryRun } from '../policy-dry-run/policy-dry-run';
import { POLICY_EFFECTS } from '../policies/policy.entity';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formCheckbox, formField } from './form-body';
import { type FormErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';

interface PolicyFormValues {
  name: string;
  description: string;
  expression: string;
  effect: string;
  priority: string;
  serverId: string;
  enabled: boolean;
  approvalMessage: string;
  rememberSeconds: string;
}

const EMPTY_FORM: PolicyFormValues = {
  name: '',
  description: '',
  expression: '',
  effect: 'deny',
  priority: '0',
  serverId: '',
  enabled: true,
  approvalMessage: '',
  rememberSeconds: '0',
};

interface DryRunFormValues {
  user: string;
  serverId: string;
  arguments: string;
}

/** Whole numbers (signed) as numbers, anything else as typed, for the DTO's validators to judge. */
function numberOrText(value: string): number | string {
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

/** Policies (admins only, as in the API): list, create, edit, delete, and the dry run. */
@AdminController('admin/policies')
export class AdminPoliciesController {
  constructor(
    private readonly policies: PoliciesService,
    private readonly dryRun: PolicyDryRun,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query('page') rawPage?: string,
  ): Promise<void> {
    const page = pageNumber(rawPage);
    const result = await this.policies.list({ limit: PAGE_SIZE, offset: offsetOf(page) }, {});
    const servers = await this.serverNames();
    await this.pages.render(request, response, 'policies', {
      title: 'Policies',
      section: 'policies',
      policies: result.items.map((policy) => ({
        ...policy,
        server: policy.serverId ? (servers.get(policy.serverId) ?? policy.serverId) : null,
      })),
      pager: pager(page, result.total, (n) => hrefWith('/admin/policies', { page: n })),
    });
  }

  @Get('dry-run')
  async dryRunForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.renderDryRun(request, response, { user: '', serverId: '', arguments: '' }, null);
  }

  @Post('dry-run')
  async runDryRun(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const values: DryRunFormValues = {
      user: formField(body, 'user').trim(),
      serverId: formField(body, 'serverId'),
      arguments: formField(body, 'arguments').trim(),
    };
    const own: Record<string, string> = {};
    let args: unknown;
    if (values.arguments !== '') {
      try {
        args = JSON.parse(values.arguments);
      } catch {
        own.arguments = 'The arguments are not JSON.';
      }
    }
    const submission = await submitForm(
      PolicyDryRunDto,
      {
        user: values.user,
        ...(values.serverId === '' ? {} : { serverId: values.serverId }),
        ...(args === undefined ? {} : { arguments: args }),
      },
      { own },
      (dto) => this.dryRun.run(dto),
    );
    if (!submission.ok) {
      await this.renderDryRun(request, response, values, null, submission.errors);
      return;
    }
    await this.renderDryRun(request, response, values, submission.result);
  }

  @Get('new')
  async newForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.renderForm(request, response, null, EMPTY_FORM);
  }

  @Post()
  async create(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const values = valuesOf(body);
    const submission = await submitForm(PolicyCreateDto, inputOf(values), {}, (dto) =>
      this.policies.create(dto),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, null, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/policies', {
      kind: 'success',
      text: `Policy '${submission.result.name}' created; every replica applies it at once.`,
    });
  }

  @Get(':id/edit')
  async editForm(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const policy = await this.policies.get(id);
    await this.renderForm(request, response, policy, {
      name: policy.name,
      description: policy.description,
      expression: policy.expression,
      effect: policy.effect,
      priority: String(policy.priority),
      serverId: policy.serverId ?? '',
      enabled: policy.enabled,
      approvalMessage: policy.approval?.message ?? '',
      rememberSeconds: String(policy.approval?.rememberSeconds ?? 0),
    });
  }

  @Post(':id')
  async update(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const policy = await this.policies.get(id);
    const values = valuesOf(body);
    const submission = await submitForm(PolicyUpdateDto, inputOf(values), {}, (dto) =>
      this.policies.update(id, dto),
    );
    if (!submission.ok) {
      await this.renderForm(request, response, policy, values, submission.errors);
      return;
    }
    this.pages.redirect(request, response, '/admin/policies', {
      kind: 'success',
      text: `Policy '${submission.result.name}' saved.`,
    });
  }

  @Post(':id/delete')
  async remove(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const policy = await this.policies.get(id);
    await this.policies.remove(id);
    this.pages.redirect(request, response, '/admin/policies', {
      kind: 'success',
      text: `Policy '${policy.name}' deleted.`,
    });
  }

  private async serverNames(): Promise<Map<string, string>> {
    const servers = await this.catalog.allServers(TeamScope.ALL);
    return new Map(servers.map((server) => [server.id, server.name]));
  }

  private async serverOptions(selected: string) {
    return [...(await this.serverNames())].map(([id, name]) => ({
      id,
      name,
      selected: id === selected,
    }));
  }

  private async renderForm(
    request: Request,
    response: Response,
    policy: PolicyResponseDto | null,
    values: PolicyFormValues,
    errors?: FormErrors,
  ): Promise<void> {
    const editing = policy !== null;
    await this.pages.render(
      request,
      response,
      'policy-form',
      {
        title: editing ? `Edit policy ${policy.name}` : 'Create a policy',
        section: 'policies',
        editing,
        action: editing ? `/admin/policies/${policy.id}` : '/admin/policies',
        values,
        effects: POLICY_EFFECTS.map((effect) => ({
          value: effect,
          selected: effect === values.effect,
        })),
        servers: await this.serverOptions(values.serverId),
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }

  private async renderDryRun(
    request: Request,
    response: Response,
    values: DryRunFormValues,
    result: PolicyDryRunResultDto | null,
    errors?: FormErrors,
  ): Promise<void> {
    await this.pages.render(
      request,
      response,
      'policy-dry-run',
      {
        title: 'Policy dry run',
        section: 'policies',
        values,
        servers: await this.serverOptions(values.serverId),
        result,
        errors: errors?.fields ?? {},
        formError: errors?.message ?? null,
      },
      errors?.status ?? 200,
    );
  }
}

function valuesOf(body: FormBody): PolicyFormValues {
  return {
    name: formField(body, 'name').trim(),
    description: formField(body, 'description'),
    expression: formField(body, 'expression'),
    effect: formField(body, 'effect'),
    priority: formField(body, 'priority').trim(),
    serverId: formField(body, 'serverId'),
    enabled: formCheckbox(body, 'enabled'),
    approvalMessage: formField(body, 'approvalMessage').trim(),
    rememberSeconds: formField(body, 'rememberSeconds').trim(),
  };
}

/** The form as the API's body: approval settings go with `approve` only. */
function inputOf(values: PolicyFormValues): Record<string, unknown> {
  return {
    name: values.name,
    description: values.description,
    expression: values.expression,
    effect: values.effect,
    priority: values.priority === '' ? 0 : numberOrText(values.priority),
    serverId: values.serverId === '' ? null : values.serverId,
    enabled: values.enabled,
    approval:
      values.effect === 'approve'
        ? {
            message: values.approvalMessage === '' ? null : values.approvalMessage,
            rememberSeconds:
              values.rememberSeconds === '' ? 0 : numberOrText(values.rememberSeconds),
          }
        : null,
  };
}
