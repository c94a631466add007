import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus } from '../../events/event-bus';
import { Metrics } from '../../observability/metrics';
import { Server } from '../../servers/server.entity';
import {
  directoryOf,
  type SkillFileEntry,
  SKILLS_EXTENSION,
  type SkillUriMap,
} from '../../skills/skill-manifest';
import { Gateway } from '../../gateways/gateway.entity';
import { comparableUri } from '../../resources/resource-uri';
import { Skill } from '../../skills/skill.entity';
import { isHeld } from '../../skills/skills.service';
import { ToolNameQuery } from '../../virtual-names/tool-name.query';
import { type McpScope, scopeOf } from '../protocol/mcp-scope';
import { type ResourceTarget } from '../directory/resource-directory';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type Principal } from '../../auth/principal';
import { ScopeCache } from '../directory/scope-cache';
import {
  policySkillOf,
  type ServedSkill,
  servedTo,
  type SkillClaims,
  SkillDirectory,
} from './skill-directory';

const NONE = new SkillDirectory({ original: false }, []);

/**
 * Builds and caches each scope's skill directory, as Directories does its tools: rebuilt when the
 * bus says the catalogue or a server changed, the last one served while the database is away.
 */
@Injectable()
export class SkillDirectories implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SkillDirectories.name);
  private readonly cache: ScopeCache<SkillDirectory>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    bus: EventBus,
    metrics: Metrics,
  ) {
    this.cache = new ScopeCache(bus, metrics, this.logger, 'skills', 'the skills');
  }

  onModuleInit(): void {
    this.cache.follow();
  }

  onModuleDestroy(): void {
    this.cache.close();
  }

  get(scope: McpScope): Promise<SkillDirectory> {
    return this.cache.get(scope.kind === 'all' ? '' : scope.serverId, () => this.load(scope));
  }

  /**
   * A test of the scope's resources: true for a skill's file (`SkillDirectory.claimed`: in any
   * stored skill's directory, or any `skill://` URI of a gateway with skills) that the scope does
   * not serve the principal as that skill. Listed, read or followed as an ordinary resource, such
   * a file would pass a skill not yet synced, held for review, disabled, hidden by a policy or of
   * another server.
   */
  async withheld(
    directory: ScopeDirectory,
    principal: Principal,
  ): Promise<(target: ResourceTarget, clientUri: string) => boolean> {
    const [all, scoped] = await Promise.all([this.get(scopeOf(null)), this.get(directory.scope)]);
    return (target, clientUri) => {
      if (!all.claimed(target.gatewayId, target.upstreamUri)) return false;
      const skill = scoped.owner(clientUri);
      return (
        !skill || skill.gatewayId !== target.gatewayId || !servedTo(directory, principal, skill)
      );
    };
  }

  private async load(scope: McpScope): Promise<SkillDirectory> {
    const map: SkillUriMap = { original: false };
    const qb = this.dataSource
      .getRepository(Skill)
      .createQueryBuilder('skill')
      .innerJoin('skill.gateway', 'gateway')
      .orderBy('skill.gateway_slug', 'ASC')
      .addOrderBy('skill.uri', 'ASC');
    if (scope.kind === 'all') {
      // Every skill claims its directory; only those enabled, of enabled gateways, are served.
      qb.addSelect(['gateway.id', 'gateway.enabled']);
      const [rows, gateways] = await Promise.all([
        qb.getMany(),
        this.dataSource
          .getRepository(Gateway)
          .find({ select: { id: true, protocolExtensions: true } }),
      ]);
      const claims = new Map<string, Set<string>>();
      for (const gateway of gateways)
        if (gateway.protocolExtensions?.includes(SKILLS_EXTENSION))
          claims.set(gateway.id, new Set());
      for (const row of rows) {
        const directories = claims.get(row.gatewayId) ?? new Set<string>();
        directories.add(comparableUri(directoryOf(row.uri)));
        claims.set(row.gatewayId, directories);
      }
      return this.directory(
        map,
        rows.filter((row) => row.enabled && row.gateway?.enabled === true),
        claims,
      );
    }
    const server = await this.dataSource
      .getRepository(Server)
      .findOneBy({ id: scope.serverId, enabled: true });
    if (!server) return NONE;
    map.original = server.naming === 'original';
    qb.where('gateway.enabled = true AND skill.enabled = true').andWhere(
      'EXISTS (SELECT 1 FROM server_skill member WHERE member.skill_id = skill.id AND member.server_id = :serverId)',
      { serverId: scope.serverId },
    );
    return this.directory(map, await qb.getMany());
  }

  private directory(
    map: SkillUriMap,
    rows: readonly Skill[],
    claims?: SkillClaims,
  ): SkillDirectory {
    const skills: ServedSkill[] = [];
    const taken = new Set<string>();
    const directory = new SkillDirectory(map, skills);
    for (const row of rows) {
      const skill = this.served(directory, row);
      // Under original naming two upstreams may serve one URI: the first gateway's is kept.
      if (taken.has(skill.clientUri)) {
        this.logger.warn(
          `${skill.clientUri} of gateway '${row.gatewaySlug}' is left out: another member serves that URI`,
        );
        continue;
      }
      taken.add(skill.clientUri);
      skills.push(skill);
    }
    return new SkillDirectory(map, skills, claims);
  }

  private served(directory: SkillDirectory, row: Skill): ServedSkill {
    const name = this.names.name(row.gatewaySlug, row.name);
    const partial = { gatewaySlug: row.gatewaySlug } as ServedSkill;
    const clientUri = directory.clientUri(partial, row.uri);
    return {
      id: row.id,
      gatewayId: row.gatewayId,
      gatewaySlug: row.gatewaySlug,
      name,
      clientUri,
      entry: {
        uri: row.uri,
        name: row.name,
        frontmatter: row.frontmatter,
        resources: row.resources,
        meta: row.meta,
      },
      manifestHash: row.manifestHash,
      held: isHeld(row),
      approvedFiles: approvedFiles(row.pinnedResources),
      directoryRead: row.directoryRead,
      hint: { ttlMs: row.ttlMs, cacheScope: row.cacheScope, readAt: row.readAt },
      policy: policySkillOf(row, name, clientUri),
    };
  }
}

function approvedFiles(
  files: SkillFileEntry[] | 'dynamic' | null,
): ReadonlyMap<string, SkillFileEntry> | null {
  if (files === null || files === 'dynamic') return null;
  return new Map(files.map((file) => [file.uri, file]));
}
