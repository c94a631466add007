import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { uniqueViolation } from '../common/unique-violation';
import { EventBus } from '../events/event-bus';
import { Server } from '../servers/server.entity';
import { Tool } from '../tools/tool.entity';
import { ToolNameQuery } from '../tools/tool-name.query';
import { ConsolidatedMember } from './consolidated-member.entity';
import { ConsolidatedTool } from './consolidated-tool.entity';
import {
  ConsolidatedToolErrorCode as Code,
  ConsolidatedToolException,
} from './consolidated-tool.exception';
import {
  type ConsolidatedMemberDto,
  type ConsolidatedToolCreateDto,
  type ConsolidatedToolListDto,
  type ConsolidatedToolResponseDto,
  type ConsolidatedToolUpdateDto,
} from './dto/consolidated-tool.dto';
import { schemaDifference } from './schema-difference';
import { ServerConsolidatedTool } from './server-consolidated-tool.entity';

/**
 * Consolidated tools: saved only when every member's input schema is the same, which becomes the
 * shared schema; a member a later sync changed is reported as drifted (and withheld from clients
 * by the directory, which compares the same way).
 */
@Injectable()
export class ConsolidatedToolsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly bus: EventBus,
  ) {}

  async list(): Promise<ConsolidatedToolListDto> {
    const rows = await this.dataSource
      .getRepository(ConsolidatedTool)
      .find({ order: { name: 'ASC' } });
    return { items: await this.responses(this.dataSource.manager, rows) };
  }

  async get(id: string): Promise<ConsolidatedToolResponseDto> {
    return this.responseOf(this.dataSource.manager, await this.find(this.dataSource.manager, id));
  }

  async create(dto: ConsolidatedToolCreateDto): Promise<ConsolidatedToolResponseDto> {
    const response = await this.write(async (em) => {
      const members = await this.checkedMembers(em, dto.members);
      await this.checkName(em, dto.name, null);
      const saved = await em.getRepository(ConsolidatedTool).save(
        em.getRepository(ConsolidatedTool).create({
          name: dto.name,
          description: dto.description ?? members.tools[0]!.description,
          inputSchema: members.tools[0]!.inputSchema,
        }),
      );
      await this.replaceMembers(em, saved.id, dto.members);
      await this.replaceServers(em, saved.id, dto.serverIds ?? []);
      return this.responseOf(em, saved);
    });
    await this.changed();
    return response;
  }

  async update(id: string, dto: ConsolidatedToolUpdateDto): Promise<ConsolidatedToolResponseDto> {
    const response = await this.write(async (em) => {
      const row = await this.find(em, id);
      if (dto.name !== undefined && dto.name !== row.name) {
        await this.checkName(em, dto.name, row.id);
        row.name = dto.name;
      }
      if (dto.description !== undefined) row.description = dto.description;
      if (dto.members !== undefined) {
        const members = await this.checkedMembers(em, dto.members);
        row.inputSchema = members.tools[0]!.inputSchema;
        await this.replaceMembers(em, row.id, dto.members);
      }
      if (dto.serverIds !== undefined) await this.replaceServers(em, row.id, dto.serverIds);
      row.updatedAt = new Date();
      await em.getRepository(ConsolidatedTool).save(row);
      return this.responseOf(em, row);
    });
    await this.changed();
    return response;
  }

  async remove(id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ConsolidatedTool).delete({ id });
    if (!result.affected) throw notFound(id);
    await this.changed();
  }

  /** Catalogue-wide: `/mcp` and any server may show it, so every scope rebuilds. */
  private changed(): Promise<void> {
    return this.bus.publish({ type: 'servers.changed', serverIds: [] });
  }

  private async write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      if (uniqueViolation(error) === 'consolidated_tool_name_uq')
        throw new ConsolidatedToolException(
          Code.NameTaken,
          'Another consolidated tool has this name.',
        );
      throw error;
    }
  }

  private async find(em: EntityManager, id: string): Promise<ConsolidatedTool> {
    const row = await em.getRepository(ConsolidatedTool).findOneBy({ id });
    if (!row) throw notFound(id);
    return row;
  }

  /** A consolidated name must not be a tool's virtual name: clients would see both. */
  private async checkName(em: EntityManager, name: string, self: string | null): Promise<void> {
    const qb = em.getRepository(Tool).createQueryBuilder('tool').select('tool.id');
    if (await this.names.whereNameIs(qb, name).getExists())
      throw new ConsolidatedToolException(
        Code.NameTaken,
        `'${name}' is the virtual name of a gateway tool.`,
        { name },
      );
    const other = await em.getRepository(ConsolidatedTool).findOneBy({ name });
    if (other && other.id !== self)
      throw new ConsolidatedToolException(
        Code.NameTaken,
        `Another consolidated tool is named '${name}'.`,
        { name },
      );
  }

  /** The members' tools, in the order given, once their schemas are known to match. */
  private async checkedMembers(
    em: EntityManager,
    members: readonly ConsolidatedMemberDto[],
  ): Promise<{ tools: Tool[] }> {
    const targets = new Set(members.map((member) => member.target));
    const toolIds = new Set(members.map((member) => member.toolId));
    if (targets.size !== members.length || toolIds.size !== members.length)
      throw new ConsolidatedToolException(
        Code.DuplicateMembers,
        'Each target needs its own label and its own tool.',
      );
    const found = await em.getRepository(Tool).findBy({ id: In([...toolIds]) });
    const byId = new Map(found.map((tool) => [tool.id, tool]));
    const missing = [...toolIds].filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new ConsolidatedToolException(Code.UnknownTools, 'Some member tools do not exist.', {
        toolIds: missing,
      });
    const tools = members.map((member) => byId.get(member.toolId)!);
    const first = tools[0]!;
    const properties = first.inputSchema.properties;
    if (typeof properties === 'object' && properties !== null && 'target' in properties)
      throw new ConsolidatedToolException(
        Code.SchemaMismatch,
        "The members already take an argument named 'target', which a consolidated tool adds to pick the member.",
        { difference: 'properties.target' },
      );
    for (const [index, tool] of tools.entries()) {
      const difference = schemaDifference(first.inputSchema, tool.inputSchema);
      if (difference)
        throw new ConsolidatedToolException(
          Code.SchemaMismatch,
          `The input schema of target '${members[index]!.target}' differs from that of '${members[0]!.target}': ${difference}.`,
          { target: members[index]!.target, difference },
        );
    }
    return { tools };
  }

  private async replaceMembers(
    em: EntityManager,
    id: string,
    members: readonly ConsolidatedMemberDto[],
  ): Promise<void> {
    await em.getRepository(ConsolidatedMember).delete({ consolidatedToolId: id });
    await em
      .getRepository(ConsolidatedMember)
      .insert(members.map(({ target, toolId }) => ({ consolidatedToolId: id, target, toolId })));
  }

  private async replaceServers(em: EntityManager, id: string, serverIds: string[]): Promise<void> {
    const unique = [...new Set(serverIds)];
    if (unique.length > 0) {
      const found = await em.getRepository(Server).findBy({ id: In(unique) });
      const missing = unique.filter((serverId) => !found.some((server) => server.id === serverId));
      if (missing.length > 0)
        throw new ConsolidatedToolException(Code.UnknownServers, 'Some servers do not exist.', {
          serverIds: missing,
        });
    }
    await em.getRepository(ServerConsolidatedTool).delete({ consolidatedToolId: id });
    if (unique.length > 0)
      await em
        .getRepository(ServerConsolidatedTool)
        .insert(unique.map((serverId) => ({ serverId, consolidatedToolId: id })));
  }

  private async responseOf(
    em: EntityManager,
    row: ConsolidatedTool,
  ): Promise<ConsolidatedToolResponseDto> {
    return (await this.responses(em, [row]))[0]!;
  }

  private async responses(
    em: EntityManager,
    rows: readonly ConsolidatedTool[],
  ): Promise<ConsolidatedToolResponseDto[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [members, servers] = await Promise.all([
      em.getRepository(ConsolidatedMember).find({
        where: { consolidatedToolId: In(ids) },
        relations: { tool: true },
        order: { target: 'ASC' },
      }),
      em.getRepository(ServerConsolidatedTool).find({
        where: { consolidatedToolId: In(ids) },
        order: { serverId: 'ASC' },
      }),
    ]);
    return rows.map((row) => toResponse(row, members, servers, this.names));
  }
}

function toResponse(
  row: ConsolidatedTool,
  members: readonly ConsolidatedMember[],
  servers: readonly ServerConsolidatedTool[],
  names: ToolNameQuery,
): ConsolidatedToolResponseDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    inputSchema: row.inputSchema,
    members: members
      .filter((member) => member.consolidatedToolId === row.id)
      .map((member) => ({
        target: member.target,
        toolId: member.toolId,
        toolName: names.name(member.tool!.gatewaySlug, member.tool!.originalName),
        drift: schemaDifference(row.inputSchema, member.tool!.inputSchema),
      })),
    serverIds: servers
      .filter((server) => server.consolidatedToolId === row.id)
      .map((server) => server.serverId),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function notFound(id: string): ConsolidatedToolException {
  return new ConsolidatedToolException(Code.NotFound, `Consolidated tool ${id} does not exist.`);
}
