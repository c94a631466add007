import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type Principal } from '../auth/principal';
import { TeamScope } from '../auth/team-scope';
import { type IssuedToken } from '../auth/token.service';
import { AuthSettings } from '../config/slices/auth.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { EventBus } from '../events/event-bus';
import { type Page, type PageQueryDto } from '../common/page.dto';
import { uniqueViolation } from '../common/unique-violation';
import { TeamsService } from '../teams/teams.service';
import { TokensService } from '../tokens/tokens.service';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { Tool } from '../tools/tool.entity';
import { type ServerCreateDto } from './dto/server-create.dto';
import { type ServerResponseDto } from './dto/server-response.dto';
import { type ServerUpdateDto } from './dto/server-update.dto';
import { describeClash, OriginalNamesQuery } from './original-names.query';
import { assertNoClash, ListedNamesQuery } from './listed-names.query';
import { MEMBER_FIELDS, type ServerMemberIds, ServerMembersStore } from './server-members.store';
import { Server } from './server.entity';
import { ServerErrorCode, ServerException } from './server.exception';

@Injectable()
export class ServersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly authSettings: AuthSettings,
    private readonly serverSettings: ServerSettings,
    private readonly bus: EventBus,
    private readonly tokens: TokensService,
    private readonly teams: TeamsService,
    private readonly members: ServerMembersStore,
    private readonly originalNames: OriginalNamesQuery,
    private readonly listedNames: ListedNamesQuery,
  ) {}

  /** The servers this scope sees: its teams' and the global ones. */
  async list(page: PageQueryDto, scope: TeamScope): Promise<Page<ServerResponseDto>> {
    const qb = this.dataSource
      .getRepository(Server)
      .createQueryBuilder('server')
      .orderBy('server.name', 'ASC')
      .skip(page.offset)
      .take(page.limit);
    const [servers, total] = await scope.visible(qb, 'server.team_id').getManyAndCount();
    const members = await this.members.idsOf(
      this.dataSource.manager,
      servers.map((server) => server.id),
    );
    return {
      items: servers.map((server) => this.toResponse(server, members.get(server.id)!)),
      total,
    };
  }

  async get(id: string, scope: TeamScope): Promise<ServerResponseDto> {
    const server = await this.visible(id, scope);
    const members = await this.members.idsOf(this.dataSource.manager, [id]);
    return this.toResponse(server, members.get(id)!);
  }

  /** The server, if this scope sees it: one of another team is as missing as one that is not. */
  async visible(
    id: string,
    scope: TeamScope,
    em: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<Server> {
    const server = await this.find(id, em, lock);
    if (!scope.canSee(server.teamId)) throw notFound(id);
    return server;
  }

  async create(dto: ServerCreateDto, scope: TeamScope): Promise<ServerResponseDto> {
    const teamId = scope.teamForNew(dto.teamId, `Server '${dto.name}'`);
    const id = await this.writing(async (em) => {
      if (teamId !== null) await this.teams.assertExists(teamId, em);
      await this.assertNameFree(em, dto.name);
      const toolIds = dto.toolIds ?? [];
      await this.assertToolSearch(em, toolIds, dto.toolSearch?.alwaysLoaded ?? []);
      const repository = em.getRepository(Server);
      const server = await repository.save(
        repository.create({
          name: dto.name,
          description: dto.description ?? '',
          enabled: dto.enabled ?? true,
          naming: dto.naming ?? 'prefixed',
          clientEras: dto.clientEras ?? 'any',
          toolSearchEnabled: dto.toolSearch?.enabled ?? false,
          toolSearchAlwaysLoaded: dto.toolSearch?.alwaysLoaded ?? [],
          teamId,
        }),
      );
      for (const field of MEMBER_FIELDS)
        await this.members.replace(em, server.id, field, dto[field] ?? [], scope);
      if (server.naming === 'original') await this.assertOriginalNamesFree(em, server.id);
      return server.id;
    });
    await this.changed(id);
    return this.get(id, scope);
  }

  async update(id: string, dto: ServerUpdateDto, scope: TeamScope): Promise<ServerResponseDto> {
    await this.writing(async (em) => {
      // Locked so that two edits of one server are checked one after the other, each against
      // the members and naming the other left.
      const server = await this.visible(id, scope, em, true);
      scope.assertManage(server.teamId, `Server '${server.name}'`);
      if (dto.teamId !== undefined && dto.teamId !== server.teamId) {
        scope.assertManage(dto.teamId, `Server '${server.name}'`);
        if (dto.teamId !== null) await this.teams.assertExists(dto.teamId, em);
      }
      if (dto.name !== undefined && dto.name !== server.name)
        await this.assertNameFree(em, dto.name);
      // Checked only when given: what is stored was valid when written, and a request about
      // something else must not fail because a sync has since removed a tool.
      const alwaysLoaded = dto.toolSearch?.alwaysLoaded;
      if (alwaysLoaded !== undefined) {
        const toolIds = dto.toolIds ?? (await this.members.idsOf(em, [id])).get(id)!.toolIds;
        await this.assertToolSearch(em, toolIds, alwaysLoaded);
      }
      Object.assign(server, {
        name: dto.name ?? server.name,
        description: dto.description ?? server.description,
        enabled: dto.enabled ?? server.enabled,
        naming: dto.naming ?? server.naming,
        clientEras: dto.clientEras ?? server.clientEras,
        toolSearchEnabled: dto.toolSearch?.enabled ?? server.toolSearchEnabled,
        toolSearchAlwaysLoaded: alwaysLoaded ?? server.toolSearchAlwaysLoaded,
        teamId: dto.teamId === undefined ? server.teamId : dto.teamId,
      });
      await em.getRepository(Server).save(server);
      const replaced = MEMBER_FIELDS.filter((field) => dto[field] !== undefined);
      for (const field of replaced) await this.members.replace(em, id, field, dto[field]!, scope);
      // Like alwaysLoaded, only when the request touches names: a sync that has since made two
      // members clash must not block an unrelated edit.
      if (server.naming === 'original' && (dto.naming !== undefined || replaced.length > 0))
        await this.assertOriginalNamesFree(em, id);
      if (dto.naming !== undefined || dto.toolIds !== undefined)
        await assertNoClash(em, this.listedNames, server);
    });
    await this.changed(id);
    return this.get(id, scope);
  }

  async remove(id: string, scope: TeamScope): Promise<void> {
    const server = await this.visible(id, scope);
    scope.assertManage(server.teamId, `Server '${server.name}'`);
    const result = await this.dataSource.getRepository(Server).delete({ id });
    if (!result.affected) throw notFound(id);
    await this.changed(id);
  }

  /**
   * A managed API token, owned by the caller, that may only use this server's MCP endpoint; it is
   * listed and revoked with the caller's other tokens.
   */
  async issueToken(
    id: string,
    principal: Principal,
    ttlSeconds = this.authSettings.tokenTtlSeconds,
  ): Promise<IssuedToken> {
    const server = await this.visible(id, TeamScope.of(principal));
    const created = await this.tokens.create(
      principal,
      { name: `Server ${server.name}`.slice(0, 200), serverIds: [id] },
      ttlSeconds * 1000,
    );
    return { accessToken: created.token, tokenType: 'Bearer', expiresAt: created.expiresAt! };
  }

  async find(
    id: string,
    em: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<Server> {
    const server = await em.getRepository(Server).findOne({
      where: { id },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!server) throw notFound(id);
    return server;
  }

  private changed(serverId: string): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: [serverId] });
  }

  mcpUrl(serverId: string): string {
    return `${this.serverSettings.publicUrl}/servers/${serverId}/mcp`;
  }

  private toResponse(server: Server, members: ServerMemberIds): ServerResponseDto {
    return {
      id: server.id,
      name: server.name,
      description: server.description,
      enabled: server.enabled,
      ...members,
      naming: server.naming,
      clientEras: server.clientEras,
      toolSearch: {
        enabled: server.toolSearchEnabled,
        alwaysLoaded: server.toolSearchAlwaysLoaded,
      },
      mcpUrl: this.mcpUrl(server.id),
      teamId: server.teamId,
      createdAt: server.createdAt.toISOString(),
      updatedAt: server.updatedAt.toISOString(),
    };
  }

  private async assertOriginalNamesFree(em: EntityManager, serverId: string): Promise<void> {
    const clashes = await this.originalNames.clashes(em, serverId);
    if (clashes.length === 0) return;
    const shown = clashes.slice(0, 10).map(describeClash);
    if (clashes.length > shown.length) shown.push(`${clashes.length - shown.length} more`);
    throw new ServerException(
      ServerErrorCode.NameClash,
      `With naming 'original' these members would show under one name: ${shown.join('; ')}. Leave one of each out, or use naming 'prefixed'.`,
      { clashes },
    );
  }

  /** Always-loaded names must name member tools, or the setting would silently do nothing. */
  private async assertToolSearch(
    em: EntityManager,
    toolIds: string[],
    alwaysLoaded: string[],
  ): Promise<void> {
    if (alwaysLoaded.length === 0) return;
    const qb = em
      .getRepository(Tool)
      .createQueryBuilder('tool')
      .select(this.names.expression(), 'name');
    this.names.whereNameIn(qb, alwaysLoaded).andWhere('tool.id = ANY(:toolIds)', { toolIds });
    const known = new Set((await qb.getRawMany<{ name: string }>()).map((row) => row.name));
    const unknown = alwaysLoaded.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new ServerException(
        ServerErrorCode.UnknownAlwaysLoaded,
        `toolSearch.alwaysLoaded names tools that are not in this server: ${unknown.join(', ')}.`,
        { unknownNames: unknown },
      );
    }
  }

  private async assertNameFree(em: EntityManager, name: string): Promise<void> {
    if (await em.getRepository(Server).existsBy({ name })) {
      throw new ServerException(
        ServerErrorCode.NameTaken,
        `A server named '${name}' exists already.`,
      );
    }
  }

  private async writing<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      if (uniqueViolation(error) === 'server_name_uq') {
        throw new ServerException(
          ServerErrorCode.NameTaken,
          'A server with that name exists already.',
        );
      }
      throw error;
    }
  }
}

function notFound(id: string): ServerException {
  return new ServerException(ServerErrorCode.NotFound, `Server ${id} does not exist.`);
}
