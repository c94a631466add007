import { Injectable } from '@nestjs/common';
import { type EntityManager, In } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { STATEMENT_ROWS } from '../common/statement-rows';
import { type GatewayRef } from '../tools/tool.writer';
import {
  resourceContentHash,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from './resource-definition';
import { ResourceTemplate } from './resource-template.entity';
import { Resource } from './resource.entity';

/**
 * The one write path for resources and resource templates. URIs need no virtual names: a gateway's
 * own URIs are unique per gateway, and servers show them behind the gateway's slug.
 */
@Injectable()
export class ResourceWriter {
  async insertResources(em: EntityManager, gateway: GatewayRef, definitions: ResourceDefinition[]) {
    await this.insert(
      em,
      Resource,
      definitions.map((definition) => ({
        ...this.resourceColumns(definition),
        gatewayId: gateway.id,
        gatewaySlug: gateway.slug,
        uri: definition.uri,
      })),
    );
  }

  async insertTemplates(
    em: EntityManager,
    gateway: GatewayRef,
    definitions: ResourceTemplateDefinition[],
  ) {
    await this.insert(
      em,
      ResourceTemplate,
      definitions.map((definition) => ({
        ...this.templateColumns(definition),
        gatewayId: gateway.id,
        gatewaySlug: gateway.slug,
        uriTemplate: definition.uriTemplate,
      })),
    );
  }

  async updateResources(
    em: EntityManager,
    updates: { id: string; definition: ResourceDefinition }[],
  ) {
    for (const { id, definition } of updates)
      await em.update(Resource, id, this.resourceColumns(definition));
  }

  async updateTemplates(
    em: EntityManager,
    updates: { id: string; definition: ResourceTemplateDefinition }[],
  ) {
    for (const { id, definition } of updates)
      await em.update(ResourceTemplate, id, this.templateColumns(definition));
  }

  /** Deletes entries; their server memberships go with them (ON DELETE CASCADE). */
  async remove(
    em: EntityManager,
    entity: typeof Resource | typeof ResourceTemplate,
    ids: string[],
  ) {
    for (let start = 0; start < ids.length; start += STATEMENT_ROWS)
      await em.delete(entity, { id: In(ids.slice(start, start + STATEMENT_ROWS)) });
  }

  private async insert<T extends Resource | ResourceTemplate>(
    em: EntityManager,
    entity: new () => T,
    rows: QueryDeepPartialEntity<T>[],
  ): Promise<void> {
    for (let start = 0; start < rows.length; start += STATEMENT_ROWS)
      await em
        .createQueryBuilder()
        .insert()
        .into(entity)
        .values(rows.slice(start, start + STATEMENT_ROWS))
        .execute();
  }

  // TypeORM's partial-entity type cannot express free-form JSON columns, hence the casts.
  private resourceColumns(definition: ResourceDefinition): QueryDeepPartialEntity<Resource> {
    const { uri: _uri, size, ...base } = definition;
    return {
      ...base,
      size: size === null ? null : String(size),
      contentHash: resourceContentHash(definition),
    } as QueryDeepPartialEntity<Resource>;
  }

  private templateColumns(
    definition: ResourceTemplateDefinition,
  ): QueryDeepPartialEntity<ResourceTemplate> {
    const { uriTemplate: _uriTemplate, ...base } = definition;
    return {
      ...base,
      contentHash: resourceContentHash(definition),
    } as QueryDeepPartialEntity<ResourceTemplate>;
  }
}
