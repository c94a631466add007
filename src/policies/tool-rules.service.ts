import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { type Principal } from '../auth/principal';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { EventBus } from '../events/event-bus';
import { type ToolRuleCreateDto } from './dto/tool-rule-create.dto';
import { type ToolRuleResponseDto } from './dto/tool-rule-response.dto';
import { PolicyErrorCode, PolicyException } from './policy.exception';
import { ToolPolicy } from './tool-policy';
import { ToolRule } from './tool-rule.entity';

/**
 * Allow and deny rules of tools, managed by admins. The MCP endpoints read them with each scope's
 * directory; REST invoke reads the global ones of the tool it calls.
 */
@Injectable()
export class ToolRulesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
  ) {}

  async list(
    page: PageQueryDto,
    filter: { toolId?: string; serverId?: string },
  ): Promise<Page<ToolRuleResponseDto>> {
    const [rules, total] = await this.dataSource.getRepository(ToolRule).findAndCount({
      where: {
        ...(filter.toolId ? { toolId: filter.toolId } : {}),
        ...(filter.serverId ? { serverId: filter.serverId } : {}),
      },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
    return { items: rules.map(toResponse), total };
  }

  async create(dto: ToolRuleCreateDto): Promise<ToolRuleResponseDto> {
    const serverId = dto.serverId ?? null;
    const teamId = dto.teamId ?? null;
    const rows: { tools: number; servers: number; teams: number }[] = await this.dataSource.query(
      `SELECT (SELECT count(*)::int FROM tool WHERE id = $1) AS tools,
              (SELECT count(*)::int FROM server WHERE id = $2) AS servers,
              (SELECT count(*)::int FROM team WHERE id = $3) AS teams`,
      [dto.toolId, serverId, teamId],
    );
    const counts = rows[0]!;
    const unknown = [
      ...(counts.tools === 0 ? [`tool ${dto.toolId}`] : []),
      ...(serverId !== null && counts.servers === 0 ? [`server ${serverId}`] : []),
      ...(teamId !== null && counts.teams === 0 ? [`team ${teamId}`] : []),
    ];
    if (unknown.length > 0)
      throw new PolicyException(PolicyErrorCode.UnknownTarget, `No such ${unknown.join(', ')}.`);
    const repository = this.dataSource.getRepository(ToolRule);
    const rule = await repository.save(
      repository.create({
        toolId: dto.toolId,
        effect: dto.effect,
        serverId,
        teamId,
        role: dto.role ?? null,
      }),
    );
    await this.changed(serverId);
    return toResponse(rule);
  }

  async remove(id: string): Promise<void> {
    const rule = await this.dataSource.getRepository(ToolRule).findOneBy({ id });
    if (!rule)
      throw new PolicyException(PolicyErrorCode.RuleNotFound, `Rule ${id} does not exist.`);
    await this.dataSource.getRepository(ToolRule).delete({ id });
    await this.changed(rule.serverId);
  }

  /** Whether the global rules let this principal use the tool (REST invoke's check). */
  async allowsEverywhere(principal: Principal, toolId: string): Promise<boolean> {
    const global = await this.dataSource
      .getRepository(ToolRule)
      .findBy({ toolId, serverId: IsNull() });
    return global.length === 0 || new ToolPolicy(global).allows(principal, toolId);
  }

  /** A server's rules change its directory only; a global one every directory. */
  private changed(serverId: string | null): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: serverId ? [serverId] : [] });
  }
}

function toResponse(rule: ToolRule): ToolRuleResponseDto {
  return {
    id: rule.id,
    toolId: rule.toolId,
    effect: rule.effect,
    serverId: rule.serverId,
    teamId: rule.teamId,
    role: rule.role,
    createdAt: rule.createdAt.toISOString(),
  };
}
