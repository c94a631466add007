import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { EventBus } from '../events/event-bus';
import { virtualUri } from '../resources/resource-uri';
import { Server } from '../servers/server.entity';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import {
  type SkillListQueryDto,
  type SkillPageDto,
  type SkillResponseDto,
  type SkillUpdateDto,
} from './dto/skill.dto';
import { SkillErrorCode, SkillException } from './skill.exception';
import { ServerSkill, Skill } from './skill.entity';

/** Whether a skill is kept from clients: no approved manifest, or another one than served now. */
export function isHeld(skill: Pick<Skill, 'pinnedHash' | 'manifestHash'>): boolean {
  return skill.pinnedHash !== skill.manifestHash;
}

/**
 * The catalogue's skills, as the REST API reads and changes them: a scope sees the skills of the
 * gateways it sees and changes (enables, approves) those of the gateways it manages, as with
 * tools; a server's skills are set by whoever manages the server.
 */
@Injectable()
export class SkillsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly bus: EventBus,
  ) {}

  async list(query: SkillListQueryDto, scope: TeamScope): Promise<SkillPageDto> {
    const qb = scope.visibleThrough(
      this.dataSource.getRepository(Skill).createQueryBuilder('skill'),
      'skill.gateway_id',
      'gateway',
    );
    if (query.gatewayId)
      qb.andWhere('skill.gateway_id = :gatewayId', { gatewayId: query.gatewayId });
    if (query.q)
      qb.andWhere(`(skill.gateway_slug || :separator || skill.name) ILIKE :pattern`, {
        separator: this.names.separator,
        pattern: `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      });
    qb.orderBy('skill.gateway_slug', 'ASC')
      .addOrderBy('skill.name', 'ASC')
      .addOrderBy('skill.uri', 'ASC')
      .skip(query.offset)
      .take(query.limit);
    const [skills, total] = await qb.getManyAndCount();
    return { items: skills.map((skill) => this.toResponse(skill)), total };
  }

  async get(id: string, scope: TeamScope): Promise<SkillResponseDto> {
    return this.toResponse(await this.find(id, scope));
  }

  async update(id: string, dto: SkillUpdateDto, scope: TeamScope): Promise<SkillResponseDto> {
    const skill = await this.find(id, scope);
    scope.assertManage(skill.gateway!.teamId, `The gateway of skill '${skill.name}'`);
    // Only a change is written: the same value again keeps `updatedAt`, the skill's last change.
    const { affected } = await this.dataSource
      .getRepository(Skill)
      .update({ id, enabled: !dto.enabled }, { enabled: dto.enabled });
    if (affected)
      await this.bus.publish({ type: 'catalog.changed', gatewayIds: [skill.gatewayId] });
    return this.get(id, scope);
  }

  /** Approves the manifest the upstream lists now: the skill is served again as it is. */
  async approve(id: string, scope: TeamScope): Promise<SkillResponseDto> {
    const skill = await this.find(id, scope);
    scope.assertManage(skill.gateway!.teamId, `The gateway of skill '${skill.name}'`);
    // Only the manifest that was looked at: a sync may have changed it since (the answer says so).
    await this.dataSource.query(
      `UPDATE skill SET pinned_hash = $1, pinned_resources = $2::jsonb, updated_at = now()
       WHERE id = $3 AND manifest_hash = $1`,
      [skill.manifestHash, JSON.stringify(skill.resources), id],
    );
    await this.bus.publish({ type: 'catalog.changed', gatewayIds: [skill.gatewayId] });
    return this.get(id, scope);
  }

  async serverSkills(serverId: string, scope: TeamScope): Promise<SkillResponseDto[]> {
    await this.server(serverId, scope);
    const skills = await this.dataSource
      .getRepository(Skill)
      .createQueryBuilder('skill')
      .innerJoin(ServerSkill, 'member', 'member.skill_id = skill.id')
      .where('member.server_id = :serverId', { serverId })
      .orderBy('skill.gateway_slug', 'ASC')
      .addOrderBy('skill.name', 'ASC')
      .getMany();
    return skills.map((skill) => this.toResponse(skill));
  }

  /** Replaces the skills a server serves; each must be of a gateway the scope sees. */
  async setServerSkills(
    serverId: string,
    skillIds: string[],
    scope: TeamScope,
  ): Promise<SkillResponseDto[]> {
    const server = await this.server(serverId, scope);
    scope.assertManage(server.teamId, `Server '${server.name}'`);
    const wanted = [...new Set(skillIds)];
    await this.dataSource.transaction(async (em) => {
      const found = wanted.length
        ? await scope
            .visibleThrough(
              em.getRepository(Skill).createQueryBuilder('skill'),
              'skill.gateway_id',
              'gateway',
            )
            .andWhere({ id: In(wanted) })
            .getMany()
        : [];
      const unknown = wanted.filter((id) => !found.some((skill) => skill.id === id));
      if (unknown.length > 0)
        throw new SkillException(
          SkillErrorCode.UnknownMembers,
          `Unknown skills: ${unknown.slice(0, 10).join(', ')}`,
        );
      await em.getRepository(ServerSkill).delete({ serverId });
      if (wanted.length > 0)
        await em
          .getRepository(ServerSkill)
          .insert(wanted.map((skillId) => ({ serverId, skillId })));
    });
    await this.bus.publish({ type: 'servers.changed', serverIds: [serverId] });
    return this.serverSkills(serverId, scope);
  }

  toResponse(skill: Skill): SkillResponseDto {
    return {
      id: skill.id,
      name: this.names.name(skill.gatewaySlug, skill.name),
      originalName: skill.name,
      uri: skill.uri,
      prefixedUri: virtualUri(skill.gatewaySlug, skill.uri),
      frontmatter: skill.frontmatter,
      resources: skill.resources,
      manifestHash: skill.manifestHash,
      pinnedHash: skill.pinnedHash,
      held: isHeld(skill),
      pinnedResources: skill.pinnedResources,
      enabled: skill.enabled,
      gatewayId: skill.gatewayId,
      gatewaySlug: skill.gatewaySlug,
      createdAt: skill.createdAt.toISOString(),
      updatedAt: skill.updatedAt.toISOString(),
    };
  }

  private async find(id: string, scope: TeamScope): Promise<Skill> {
    const skill = await this.dataSource
      .getRepository(Skill)
      .findOne({ where: { id }, relations: { gateway: true } });
    if (!skill?.gateway || !scope.canSee(skill.gateway.teamId))
      throw new SkillException(SkillErrorCode.NotFound, `Skill ${id} does not exist.`);
    return skill;
  }

  private async server(id: string, scope: TeamScope): Promise<Server> {
    const server = await this.dataSource.getRepository(Server).findOneBy({ id });
    if (!server || !scope.canSee(server.teamId))
      throw new SkillException(SkillErrorCode.ServerNotFound, `Server ${id} does not exist.`);
    return server;
  }
}
