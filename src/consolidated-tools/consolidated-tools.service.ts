import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { uniqueViolation } from '../common/unique-violation';
import { EventBus } from '../events/event-bus';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { ConsolidatedMember } from './consolidated-member.entity';
import { ConsolidatedTool } from './consolidated-tool.entity';
import {
  ConsolidatedToolErrorCode as Code,
  ConsolidatedToolException,
} from './consolidated-tool.exception';
import {
  type ConsolidatedToolCreateDto,
  type ConsolidatedToolListDto,
  type ConsolidatedToolResponseDto,
  type ConsolidatedToolUpdateDto,
} from './dto/consolidated-tool.dto';
import {
  checkedMembers,
  checkName,
  replaceMembers,
  replaceServers,
} from './consolidated-tool.writes';
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
      const members = await checkedMembers(em, dto.members);
      await checkName(em, this.names, dto.name, null);
      const saved = await em.getRepository(ConsolidatedTool).save(
        em.getRepository(ConsolidatedTool).create({
          name: dto.name,
          description: dto.description ?? members.tools[0]!.description,
          inputSchema: members.tools[0]!.inputSchema,
        }),
      );
      await replaceMembers(em, saved.id, dto.members);
      await replaceServers(em, saved.id, dto.serverIds ?? []);
      return this.responseOf(em, saved);
    });
    await this.changed();
    return response;
  }

  async update(id: string, dto: ConsolidatedToolUpdateDto): Promise<ConsolidatedToolResponseDto> {
    const response = await this.write(async (em) => {
      const row = await this.find(em, id);
      if (dto.name !== undefined && dto.name !== row.name) {
        await checkName(em, this.names, dto.name, row.id);
        row.name = dto.name;
      }
      if (dto.description !== undefined) row.description = dto.description;
      if (dto.members !== undefined) {
        const members = await checkedMembers(em, dto.members);
        row.inputSchema = members.tools[0]!.inputSchema;
        await replaceMembers(em, row.id, dto.members);
      }
      if (dto.serverIds !== undefined) await replaceServers(em, row.id, dto.serverIds);
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
