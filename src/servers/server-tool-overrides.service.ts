import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { type TeamScope } from '../auth/team-scope';
import { weakens } from '../policies/policy-tool';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { type JsonObject } from '../common/json-value';
import { EventBus } from '../events/event-bus';
import {
  type ServerToolOverrideDto,
  type ServerToolOverrideListDto,
  type ServerToolOverrideResponseDto,
} from './dto/server-tool-override.dto';
import { assertNoClash, ListedNamesQuery } from './listed-names.query';
import { ServerToolOverride } from './server-tool-override.entity';
import { type Server } from './server.entity';
import { ServerErrorCode, ServerException } from './server.exception';
import { ServersService } from './servers.service';

/** Per-server overrides of how member tools show: name, title, description, annotations. */
@Injectable()
export class ServerToolOverridesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly servers: ServersService,
    private readonly listedNames: ListedNamesQuery,
    private readonly names: ToolNameQuery,
    private readonly bus: EventBus,
  ) {}

  async list(serverId: string, scope: TeamScope): Promise<ServerToolOverrideListDto> {
    await this.servers.visible(serverId, scope);
    const overrides = await this.dataSource
      .getRepository(ServerToolOverride)
      .find({ where: { serverId }, order: { toolId: 'ASC' } });
    return { items: overrides.map(toResponse) };
  }

  /** Sets the override of a member tool; 409 when its name would clash with another member's. */
  async put(
    serverId: string,
    toolId: string,
    dto: ServerToolOverrideDto,
    scope: TeamScope,
  ): Promise<ServerToolOverrideResponseDto> {
    const saved = await this.dataSource.transaction(async (em) => {
      const server = await this.managed(em, serverId, scope);
      const member: { annotations: JsonObject | null; name: string }[] = await em.query(
        `SELECT t.annotations, ${this.names.expression('t')} AS name
         FROM server_tool st JOIN tool t ON t.id = st.tool_id
         WHERE st.server_id = $1 AND st.tool_id = $2`,
        [serverId, toolId],
      );
      if (member.length === 0)
        throw new ServerException(
          ServerErrorCode.UnknownTools,
          `Tool ${toolId} is not a member of server '${server.name}'.`,
          { unknownToolIds: [toolId] },
        );
      if (!scope.everything) assertNoWeakening(member[0]!, dto.annotations);
      const repository = em.getRepository(ServerToolOverride);
      const override =
        (await repository.findOneBy({ serverId, toolId })) ??
        repository.create({ serverId, toolId });
      Object.assign(override, {
        name: dto.name ?? null,
        title: dto.title ?? null,
        description: dto.description ?? null,
        annotations: dto.annotations ? { ...dto.annotations } : null,
      });
      const saved = await repository.save(override);
      await assertNoClash(em, this.listedNames, server);
      return saved;
    });
    await this.changed(serverId);
    return toResponse(saved);
  }

  async remove(serverId: string, toolId: string, scope: TeamScope): Promise<void> {
    await this.managed(this.dataSource.manager, serverId, scope, false);
    const result = await this.dataSource
      .getRepository(ServerToolOverride)
      .delete({ serverId, toolId });
    if (!result.affected)
      throw new ServerException(
        ServerErrorCode.NotFound,
        `Server ${serverId} has no override of tool ${toolId}.`,
      );
    await this.changed(serverId);
  }

  /** The server if this scope manages it; locked (in a transaction) while its names are checked. */
  private async managed(
    em: EntityManager,
    serverId: string,
    scope: TeamScope,
    lock = true,
  ): Promise<Server> {
    const server = await this.servers.visible(serverId, scope, em, lock);
    scope.assertManage(server.teamId, `Server '${server.name}'`);
    return server;
  }

  private changed(serverId: string): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: [serverId] });
  }
}

/**
 * An operator's override may make a tool look more cautious, never less: claiming a tool the
 * upstream calls destructive harmless is an admin's call. Policies never read such a claim either
 * (see policyToolOf); this keeps clients, which read annotations too, from being told it.
 */
function assertNoWeakening(
  tool: { annotations: JsonObject | null; name: string },
  annotations: ServerToolOverrideDto['annotations'],
): void {
  const weakened = Object.entries(annotations ?? {}).filter(([key, value]) =>
    weakens(tool.annotations, key, value),
  );
  if (weakened.length === 0) return;
  const said = weakened
    .map(
      ([key, value]) => `${key}: ${String(value)} (the upstream says ${upstreamSays(tool, key)})`,
    )
    .join(', ');
  throw new AuthException(
    AuthErrorCode.Forbidden,
    `An operator's override may make '${tool.name}' look more cautious, never less: ${said} needs an admin.`,
  );
}

function upstreamSays(tool: { annotations: JsonObject | null }, key: string): string {
  const value = tool.annotations?.[key];
  return value === undefined
    ? 'nothing, which MCP reads as the cautious value'
    : JSON.stringify(value);
}

function toResponse(override: ServerToolOverride): ServerToolOverrideResponseDto {
  return {
    serverId: override.serverId,
    toolId: override.toolId,
    name: override.name,
    title: override.title,
    description: override.description,
    annotations: override.annotations,
    updatedAt: override.updatedAt.toISOString(),
  };
}
