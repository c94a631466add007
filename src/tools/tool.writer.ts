import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { deleteRows, STATEMENT_ROWS, updateRows } from '../common/statement-rows';
import { type SyncConflict } from '../sync-report/sync-report';
import { type ToolDefinition } from './tool-definition';
import { contentHash, toolHash } from './tool-hash';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { Tool } from './tool.entity';
import { insertedPin, type PinWrite } from '../pin-state/pin-columns';

export interface InsertedTool {
  id: string;
  originalName: string;
}

export interface GatewayRef {
  id: string;
  slug: string;
}

/**
 * The one write path for tools, used by sync and by seeding. It refuses, per tool, anything that
 * would give two tools the same virtual name, and reports why instead of failing the batch.
 */
@Injectable()
export class ToolWriter {
  constructor(private readonly names: ToolNameQuery) {}

  async insert(
    em: EntityManager,
    gateway: GatewayRef,
    definitions: ToolDefinition[],
    pins: readonly PinWrite[] = [],
  ): Promise<{ inserted: InsertedTool[]; conflicts: SyncConflict[] }> {
    const conflicts: SyncConflict[] = [];
    const candidates = new Map<string, ToolDefinition>();
    for (const definition of definitions) {
      const name = this.names.name(gateway.slug, definition.name);
      if (!TOOL_NAME_RULE.test(name)) {
        conflicts.push({
          name: definition.name,
          reason: `virtual name '${name}' breaks the MCP tool-name rule (over 128 characters?)`,
        });
      } else if (candidates.has(name)) {
        conflicts.push({
          name: definition.name,
          reason: 'the upstream lists this name more than once',
        });
      } else {
        candidates.set(name, definition);
      }
    }
    for (const clash of await this.takenNames(em, [...candidates.keys()])) {
      const definition = candidates.get(clash.name)!;
      candidates.delete(clash.name);
      conflicts.push({
        name: definition.name,
        reason: `virtual name '${clash.name}' is already used by tool '${clash.originalName}' of gateway '${clash.gatewaySlug}'`,
      });
    }

    const accepted = [...candidates.values()];
    const pinOf = new Map(pins.map((write) => [write.key, write]));
    const inserted: InsertedTool[] = [];
    for (let start = 0; start < accepted.length; start += STATEMENT_ROWS) {
      // Built per chunk: hashing every row at once held the thread as long as the insert did.
      const chunk = accepted
        .slice(start, start + STATEMENT_ROWS)
        .map((definition) => this.row(gateway, definition, pinOf.get(definition.name)));
      const result = await em
        .createQueryBuilder()
        .insert()
        .into(Tool)
        .values(chunk)
        .returning('"id", "original_name"')
        .execute();
      for (const row of result.raw as { id: string; original_name: string }[]) {
        inserted.push({ id: row.id, originalName: row.original_name });
      }
    }
    return { inserted, conflicts };
  }

  /** Replaces a tool's upstream definition in place, so its id and memberships survive. */
  async update(em: EntityManager, toolId: string, definition: ToolDefinition): Promise<void> {
    await em.update(Tool, toolId, this.definitionColumns(definition));
  }

  /**
   * `update` for many tools, one statement per chunk: a sync that changes thousands of tools
   * would otherwise hold its transaction for a round trip per tool.
   */
  async updateMany(
    em: EntityManager,
    updates: { id: string; definition: ToolDefinition }[],
  ): Promise<void> {
    const rows = updates.map(({ id, definition }) => ({
      id,
      ...this.definitionColumns(definition),
    }));
    await updateRows(em, Tool, rows);
  }

  private row(
    gateway: GatewayRef,
    definition: ToolDefinition,
    pin: PinWrite | undefined,
  ): QueryDeepPartialEntity<Tool> {
    return {
      ...this.definitionColumns(definition),
      ...insertedPin(pin),
      gatewayId: gateway.id,
      gatewaySlug: gateway.slug,
      originalName: definition.name,
      toolHash: toolHash(gateway.id, definition.name),
    };
  }

  // TypeORM's partial-entity type cannot express free-form JSON columns, hence the cast.
  private definitionColumns(definition: ToolDefinition): QueryDeepPartialEntity<Tool> {
    return {
      title: definition.title,
      description: definition.description,
      inputSchema: definition.inputSchema,
      outputSchema: definition.outputSchema,
      annotations: definition.annotations,
      meta: definition.meta,
      contentHash: contentHash(definition),
    } as QueryDeepPartialEntity<Tool>;
  }

  /** Deletes tools; their server memberships go with them (ON DELETE CASCADE). */
  async remove(em: EntityManager, toolIds: string[]): Promise<void> {
    await deleteRows(em, Tool, toolIds);
  }

  /** Which of these virtual names are stored already, and by whom. */
  async takenNames(
    em: EntityManager,
    names: string[],
  ): Promise<{ name: string; gatewaySlug: string; originalName: string }[]> {
    if (names.length === 0) return [];
    const qb = em
      .createQueryBuilder(Tool, 'tool')
      .select(this.names.expression(), 'name')
      .addSelect('tool.gateway_slug', 'gatewaySlug')
      .addSelect('tool.original_name', 'originalName');
    return this.names.whereNameIn(qb, names).getRawMany();
  }
}
