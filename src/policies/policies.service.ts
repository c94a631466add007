import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { uniqueViolation } from '../common/unique-violation';
import { EventBus } from '../events/event-bus';
import { compileExpression, ExpressionError } from './cel-expression';
import { type PolicyCreateDto } from './dto/policy-create.dto';
import { type PolicyResponseDto } from './dto/policy-response.dto';
import { type PolicyUpdateDto } from './dto/policy-update.dto';
import { Server } from '../servers/server.entity';
import { type PolicyApproval, type PolicyEffect, Policy } from './policy.entity';
import { PolicyErrorCode, PolicyException } from './policy.exception';

/** A policy's fields as written, before it is stored. */
export interface PolicyDraft {
  name: string;
  description: string;
  expression: string;
  effect: PolicyEffect;
  priority: number;
  serverId: string | null;
  enabled: boolean;
  approval: PolicyApproval | null;
}

/**
 * Policies, managed by admins. Every change is checked as it is saved (the expression compiles to
 * a bool; approval settings only on `approve`) and tells every replica to rebuild the directories
 * concerned (`servers.changed`).
 */
@Injectable()
export class PoliciesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  async list(page: PageQueryDto, filter: { serverId?: string }): Promise<Page<PolicyResponseDto>> {
    const [policies, total] = await this.dataSource.getRepository(Policy).findAndCount({
      where: filter.serverId ? { serverId: filter.serverId } : {},
      order: { priority: 'ASC', name: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
    return { items: policies.map(toPolicyResponse), total };
  }

  /** Every policy, in the order they are tried; for the dry run and the pages. */
  async all(em: EntityManager = this.dataSource.manager): Promise<Policy[]> {
    return em.getRepository(Policy).find({ order: { priority: 'ASC', name: 'ASC' } });
  }

  async get(id: string): Promise<PolicyResponseDto> {
    return toPolicyResponse(await this.find(id));
  }

  async create(dto: PolicyCreateDto): Promise<PolicyResponseDto> {
    const draft = await this.check(draftOf(dto));
    const policy = await this.saving(() =>
      this.dataSource
        .getRepository(Policy)
        .save(this.dataSource.getRepository(Policy).create(draft)),
    );
    await this.changed(policy.serverId);
    return toPolicyResponse(policy);
  }

  async update(id: string, dto: PolicyUpdateDto): Promise<PolicyResponseDto> {
    const policy = await this.find(id);
    const before = policy.serverId;
    const effect = dto.effect ?? policy.effect;
    const draft = await this.check({
      name: dto.name ?? policy.name,
      description: dto.description ?? policy.description,
      expression: dto.expression ?? policy.expression,
      effect,
      priority: dto.priority ?? policy.priority,
      serverId: dto.serverId === undefined ? policy.serverId : dto.serverId,
      enabled: dto.enabled ?? policy.enabled,
      approval:
        dto.approval === undefined
          ? effect === 'approve'
            ? (policy.approval ?? approvalOf(null))
            : null
          : dto.approval === null
            ? null
            : approvalOf(dto.approval),
    });
    const saved = await this.saving(() =>
      this.dataSource.getRepository(Policy).save(Object.assign(policy, draft)),
    );
    await this.changed(before === saved.serverId ? saved.serverId : null);
    return toPolicyResponse(saved);
  }

  async remove(id: string): Promise<void> {
    const policy = await this.find(id);
    await this.dataSource.getRepository(Policy).delete({ id });
    await this.changed(policy.serverId);
  }

  /**
   * Checks a draft as saving would: the expression compiles to a bool, approval settings go with
   * `approve` only, and its server exists. Returns it with an `approve`'s settings filled in.
   */
  async check(
    draft: PolicyDraft,
    em: EntityManager = this.dataSource.manager,
  ): Promise<PolicyDraft> {
    await checkExpression(draft.expression, `Policy '${draft.name}'`);
    if (draft.effect !== 'approve' && draft.approval !== null)
      throw new PolicyException(
        PolicyErrorCode.InvalidApproval,
        `Policy '${draft.name}' has approval settings, which only an \`approve\` policy takes.`,
      );
    if (
      draft.serverId !== null &&
      !(await em.getRepository(Server).existsBy({ id: draft.serverId }))
    )
      throw new PolicyException(
        PolicyErrorCode.UnknownTarget,
        `Policy '${draft.name}' names server ${draft.serverId}, which does not exist.`,
      );
    return {
      ...draft,
      approval: draft.effect === 'approve' ? (draft.approval ?? approvalOf(null)) : null,
    };
  }

  private async find(id: string): Promise<Policy> {
    const policy = await this.dataSource.getRepository(Policy).findOneBy({ id });
    if (!policy)
      throw new PolicyException(PolicyErrorCode.NotFound, `Policy ${id} does not exist.`);
    return policy;
  }

  private async saving(work: () => Promise<Policy>): Promise<Policy> {
    try {
      return await work();
    } catch (error) {
      if (uniqueViolation(error) === 'policy_name_uq')
        throw new PolicyException(
          PolicyErrorCode.NameTaken,
          'A policy with that name exists already.',
        );
      throw error;
    }
  }

  /** A server's policy changes its directory only; a global one every directory. */
  private changed(serverId: string | null): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: serverId ? [serverId] : [] });
  }
}

/**
 * Compiles and prices the expression; a 400 with the library's or the save check's message and
 * where it points otherwise.
 */
export async function checkExpression(expression: string, what: string): Promise<void> {
  try {
    await compileExpression(expression);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    const where = error.position
      ? ` (line ${error.position.line}, column ${error.position.column})`
      : '';
    throw new PolicyException(
      PolicyErrorCode.InvalidExpression,
      `${what}: the expression ${error.tooCostly ? 'is refused' : 'does not compile'}${where}: ${error.message}`,
      { position: error.position },
    );
  }
}

export function draftOf(dto: PolicyCreateDto): PolicyDraft {
  return {
    name: dto.name,
    description: dto.description ?? '',
    expression: dto.expression,
    effect: dto.effect,
    priority: dto.priority ?? 0,
    serverId: dto.serverId ?? null,
    enabled: dto.enabled ?? true,
    approval: dto.approval ? approvalOf(dto.approval) : null,
  };
}

function approvalOf(
  approval: { message?: string | null; rememberSeconds?: number } | null,
): PolicyApproval {
  return { message: approval?.message ?? null, rememberSeconds: approval?.rememberSeconds ?? 0 };
}

export function toPolicyResponse(policy: Policy): PolicyResponseDto {
  return {
    id: policy.id,
    name: policy.name,
    description: policy.description,
    expression: policy.expression,
    effect: policy.effect,
    priority: policy.priority,
    serverId: policy.serverId,
    enabled: policy.enabled,
    approval: policy.approval,
    createdAt: policy.createdAt.toISOString(),
    updatedAt: policy.updatedAt.toISOString(),
  };
}
