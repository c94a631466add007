import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { deleteRows, insertRows, updateRows } from '../common/statement-rows';
import { type GatewayRef } from '../tools/tool.writer';
import {
  resourceContentHash,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from './resource-definition';
import { ResourceTemplate } from './resource-template.entity';
import { Resource } from './resource.entity';
import { insertedPin, type PinWrite } from '../pin-state/pin-columns';

/**
 * The one write path for resources and resource templates. URIs need no virtual names: a gateway's
 * own URIs are unique per gateway, and servers show them behind the gateway's slug.
 */
@Injectable()
export class ResourceWriter {
  async insertResources(em: EntityManager, gateway: GatewayRef, definitions: ResourceDefinition[]) {
    await insertRows(
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
    pins: readonly PinWrite[] = [],
  ) {
    const pinOf = new Map(pins.map((write) => [write.key, write]));
    await insertRows(
      em,
      ResourceTemplate,
      definitions.map((definition) => ({
        ...this.templateColumns(definition),
        ...insertedPin(pinOf.get(definition.uriTemplate)),
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
    const rows = updates.map(({ id, definition }) => ({ id, ...this.resourceColumns(definition) }));
    await updateRows(em, Resource, rows);
  }

  async updateTemplates(
    em: EntityManager,
    updates: { id: string; definition: ResourceTemplateDefinition }[],
  ) {
    const rows = updates.map(({ id, definition }) => ({ id, ...this.templateColumns(definition) }));
    await updateRows(em, ResourceTemplate, rows);
  }

  /** Deletes entries; their server memberships go with them (ON DELETE CASCADE). */
  async remove(
    em: EntityManager,
    entity: typeof Resource | typeof ResourceTemplate,
    ids: string[],
  ) {
    await deleteRows(em, entity, ids);
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
