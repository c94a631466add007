import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { type SyncConflict } from '../sync-report/sync-report';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { type GatewayRef } from '../tools/tool.writer';
import { promptContentHash, type PromptDefinition } from './prompt-definition';
import { Prompt } from './prompt.entity';
import { deleteRows, insertRows, updateRows } from '../common/statement-rows';
import { insertedPin, type PinWrite } from '../pin-state/pin-columns';

/**
 * The one write path for prompts. Like tools, a prompt whose virtual name another gateway's
 * prompt has is not stored, and the report says why.
 */
@Injectable()
export class PromptWriter {
  constructor(private readonly names: ToolNameQuery) {}

  async insert(
    em: EntityManager,
    gateway: GatewayRef,
    definitions: PromptDefinition[],
    pins: readonly PinWrite[] = [],
  ): Promise<{ inserted: string[]; conflicts: SyncConflict[] }> {
    const conflicts: SyncConflict[] = [];
    const candidates = new Map<string, PromptDefinition>();
    for (const definition of definitions) {
      const name = this.names.name(gateway.slug, definition.name);
      if (TOOL_NAME_RULE.test(name)) candidates.set(name, definition);
      else
        conflicts.push({
          name: definition.name,
          reason: `virtual name '${name}' is over 128 characters`,
        });
    }
    if (candidates.size > 0) {
      const qb = em
        .createQueryBuilder(Prompt, 'prompt')
        .select(this.names.expression('prompt'), 'name')
        .addSelect('prompt.gateway_slug', 'gatewaySlug');
      const taken: { name: string; gatewaySlug: string }[] = await this.names
        .whereNameIn(qb, [...candidates.keys()], 'prompt')
        .getRawMany();
      for (const clash of taken) {
        const definition = candidates.get(clash.name)!;
        candidates.delete(clash.name);
        conflicts.push({
          name: definition.name,
          reason: `virtual name '${clash.name}' is already used by a prompt of gateway '${clash.gatewaySlug}'`,
        });
      }
    }
    const pinOf = new Map(pins.map((write) => [write.key, write]));
    const rows = [...candidates.values()].map((definition) => ({
      ...this.columns(definition),
      ...insertedPin(pinOf.get(definition.name)),
      gatewayId: gateway.id,
      gatewaySlug: gateway.slug,
      originalName: definition.name,
    }));
    await insertRows(em, Prompt, rows);
    return { inserted: rows.map((row) => row.originalName), conflicts };
  }

  async update(em: EntityManager, updates: { id: string; definition: PromptDefinition }[]) {
    const rows = updates.map(({ id, definition }) => ({ id, ...this.columns(definition) }));
    await updateRows(em, Prompt, rows);
  }

  async remove(em: EntityManager, ids: string[]): Promise<void> {
    await deleteRows(em, Prompt, ids);
  }

  // TypeORM's partial-entity type cannot express free-form JSON columns, hence the cast.
  private columns(definition: PromptDefinition): QueryDeepPartialEntity<Prompt> {
    const { name: _name, ...rest } = definition;
    return {
      ...rest,
      contentHash: promptContentHash(definition),
    } as QueryDeepPartialEntity<Prompt>;
  }
}
