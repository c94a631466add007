import { Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { Tool } from './tool.entity';

/**
 * The tools the MCP endpoints serve: enabled tools of enabled gateways. The unique indexes
 * `tool_hash_uq` and the virtual-name index answer the lookups.
 */
@Injectable()
export class ServedToolsQuery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
  ) {}

  /** Every served tool, or a virtual server's members among them; ordered by virtual name. */
  ofScope(serverId: string | null): Promise<Tool[]> {
    const qb = this.served();
    if (serverId !== null) {
      qb.innerJoin(
        'server_tool',
        'membership',
        'membership.tool_id = tool.id AND membership.server_id = :serverId',
        { serverId },
      );
    }
    return this.names.orderByName(qb).getMany();
  }

  /** The served tools among these ids, in no particular order. */
  byIds(ids: readonly string[]): Promise<Tool[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.served().andWhere('tool.id IN (:...ids)', { ids }).getMany();
  }

  byHash(hash: string): Promise<Tool | null> {
    return this.byHashQuery(hash).getOne();
  }

  byHashQuery(hash: string): SelectQueryBuilder<Tool> {
    return this.served().andWhere('tool.tool_hash = :hash', { hash });
  }

  /** The gateway's served tools, by upstream name. */
  ofGateway(gatewayId: string): Promise<Tool[]> {
    return this.served()
      .andWhere('tool.gateway_id = :gatewayId', { gatewayId })
      .orderBy('tool.original_name')
      .getMany();
  }

  private served(): SelectQueryBuilder<Tool> {
    return this.dataSource
      .getRepository(Tool)
      .createQueryBuilder('tool')
      .innerJoin('tool.gateway', 'gateway', 'gateway.enabled = true')
      .where('tool.enabled = true')
      .andWhere('tool.quarantine IS NULL');
  }
}
