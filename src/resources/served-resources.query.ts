import { Injectable } from '@nestjs/common';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { Gateway } from '../gateways/gateway.entity';
import { ResourceTemplate } from './resource-template.entity';
import { Resource } from './resource.entity';

/** The resources and templates the MCP endpoints serve: enabled ones of enabled gateways. */
@Injectable()
export class ServedResourcesQuery {
  constructor(private readonly dataSource: DataSource) {}

  /** Every served resource, or a virtual server's members among them. */
  resources(serverId: string | null): Promise<Resource[]> {
    return this.ofScope(Resource, 'server_resource', 'resource_id', serverId)
      .orderBy('entry.gateway_slug')
      .addOrderBy('entry.uri')
      .getMany();
  }

  templates(serverId: string | null): Promise<ResourceTemplate[]> {
    return this.ofScope(ResourceTemplate, 'server_resource_template', 'template_id', serverId)
      .andWhere('entry.quarantine IS NULL')
      .orderBy('entry.gateway_slug')
      .addOrderBy('entry.uri_template')
      .getMany();
  }

  /**
   * What an operator withdrew from enabled gateways: disabled resources, and templates disabled or
   * held for review. No endpoint reads their URIs, whatever else would admit them (`/mcp` reads
   * any URI of a gateway; another template may match).
   */
  async withdrawn(): Promise<{
    resources: Pick<Resource, 'gatewayId' | 'uri'>[];
    templates: Pick<ResourceTemplate, 'gatewayId' | 'uriTemplate'>[];
  }> {
    const [resources, templates] = await Promise.all([
      this.dataSource
        .getRepository(Resource)
        .createQueryBuilder('entry')
        .select(['entry.gatewayId', 'entry.uri'])
        .innerJoin('entry.gateway', 'gateway', 'gateway.enabled = true')
        .where('entry.enabled = false')
        .getMany(),
      this.dataSource
        .getRepository(ResourceTemplate)
        .createQueryBuilder('entry')
        .select(['entry.gatewayId', 'entry.uriTemplate'])
        .innerJoin('entry.gateway', 'gateway', 'gateway.enabled = true')
        .where('entry.enabled = false OR entry.quarantine IS NOT NULL')
        .getMany(),
    ]);
    return { resources, templates };
  }

  /** The enabled gateways, by slug: the gateway-wide endpoint reads any URI of any of them. */
  async enabledGateways(): Promise<Map<string, string>> {
    const rows = await this.dataSource
      .getRepository(Gateway)
      .find({ select: { id: true, slug: true }, where: { enabled: true } });
    return new Map(rows.map((row) => [row.slug, row.id]));
  }

  private ofScope<T extends ObjectLiteral>(
    entity: new () => T,
    joinTable: string,
    joinColumn: string,
    serverId: string | null,
  ): SelectQueryBuilder<T> {
    const qb = this.dataSource
      .getRepository(entity)
      .createQueryBuilder('entry')
      .innerJoin('entry.gateway', 'gateway', 'gateway.enabled = true')
      .where('entry.enabled = true');
    if (serverId !== null)
      qb.innerJoin(
        joinTable,
        'membership',
        `membership.${joinColumn} = entry.id AND membership.server_id = :serverId`,
        { serverId },
      );
    return qb;
  }
}
