import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type ConsolidationDrift } from '../sync-report/sync-report';
import { ServedToolsQuery } from '../tools/served-tools.query';
import { type Tool } from '../tools/tool.entity';
import { ConsolidatedMember } from './consolidated-member.entity';
import { ConsolidatedTool } from './consolidated-tool.entity';
import { schemaDifference } from './schema-difference';

/** A consolidated tool as a scope serves it: the targets whose tools are served and in line. */
export interface ServedConsolidatedTool {
  id: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** By label; a member whose tool is not served (disabled, quarantined) or drifted is absent. */
  members: { target: string; tool: Tool }[];
}

@Injectable()
export class ConsolidatedToolsQuery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly served: ServedToolsQuery,
  ) {}

  /** Every consolidated tool (`/mcp`), or those a virtual server includes. */
  async ofScope(serverId: string | null): Promise<ServedConsolidatedTool[]> {
    const qb = this.dataSource
      .getRepository(ConsolidatedTool)
      .createQueryBuilder('consolidated')
      .orderBy('consolidated.name');
    if (serverId !== null)
      qb.innerJoin(
        'server_consolidated_tool',
        'inclusion',
        'inclusion.consolidated_tool_id = consolidated.id AND inclusion.server_id = :serverId',
        { serverId },
      );
    const rows = await qb.getMany();
    if (rows.length === 0) return [];
    const members = await this.dataSource
      .getRepository(ConsolidatedMember)
      .createQueryBuilder('member')
      .where('member.consolidated_tool_id IN (:...ids)', { ids: rows.map((row) => row.id) })
      .orderBy('member.target')
      .getMany();
    const tools = await this.served.byIds([...new Set(members.map((member) => member.toolId))]);
    const byId = new Map(tools.map((tool) => [tool.id, tool]));
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      inputSchema: row.inputSchema,
      members: members.flatMap((member) => {
        const tool = byId.get(member.toolId);
        if (member.consolidatedToolId !== row.id || !tool) return [];
        if (schemaDifference(row.inputSchema, tool.inputSchema) !== null) return [];
        return [{ target: member.target, tool }];
      }),
    }));
  }

  /** The members of the gateway's tools whose schemas drifted from their consolidated tool's. */
  async driftOf(em: EntityManager, gatewayId: string): Promise<ConsolidationDrift[]> {
    const members = await em
      .getRepository(ConsolidatedMember)
      .createQueryBuilder('member')
      .innerJoinAndSelect('member.tool', 'tool', 'tool.gateway_id = :gatewayId', { gatewayId })
      .innerJoinAndSelect('member.consolidatedTool', 'consolidated')
      .orderBy('consolidated.name')
      .addOrderBy('member.target')
      .getMany();
    return members.flatMap((member) => {
      const difference = schemaDifference(
        member.consolidatedTool!.inputSchema,
        member.tool!.inputSchema,
      );
      return difference === null
        ? []
        : [
            {
              name: member.tool!.originalName,
              consolidatedTool: member.consolidatedTool!.name,
              target: member.target,
              difference,
            },
          ];
    });
  }
}
