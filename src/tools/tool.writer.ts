import { Injectable } from '@nestjs/common';
import { type EntityManager, In } from 'typeorm';
import { type QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { STATEMENT_ROWS } from '../common/statement-rows';
import { type SyncConflict } from '../sync-report/sync-report';
import { type ToolDefinition } from './tool-definition';
import { contentHash, toolHash } from './tool-hash';
import { TOOL_NAME_RULE } from '../common/tool-name-rule';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { Tool } from './tool.entity';

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
    const inserted: InsertedTool[] = [];
    for (let start = 0; start < accepted.length; start += STATEMENT_ROWS) {
      // Built per chunk: hashing every row at once held the thread as long as the insert did.
      const chunk = accepted
        .slice(start, start + STATEMENT_ROWS)
        .map((definition) => this.row(gateway, definition));
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
    for (let start = 0; start < updates.length; start += STATEMENT_ROWS) {
      const rows = updates.slice(start, start + STATEMENT_ROWS).map(({ id, definition }) => ({
        id,
        title: definition.title,
        description: definition.description,
        input_schema: definition.inputSchema,
        output_schema: definition.outputSchema,
        annotations: definition.annotations,
        meta: definition.meta,
        content_hash: contentHash(definition),
      }));
      await em.query(
        `UPDATE "tool" AS tool SET
           "title" = incoming.title, "description" = incoming.description,
           "input_schema" = incoming.input_schema, "output_schema" = incoming.output_schema,
           "annotations" = incoming.annotations, "meta" = incoming.meta,
           "content_hash" = incoming.content_hash, "updated_at" = now()
         FROM jsonb_to_recordset($1::jsonb) AS incoming(
           id uuid, title varchar, description text, input_schema jsonb, output_schema jsonb,
           annotations jsonb, meta jsonb, content_hash varchar)
         WHERE tool.id = incoming.id`,
        [JSON.stringify(rows)],
      );
    }
  }

  private row(gateway: GatewayRef, definition: ToolDefinition): QueryDeepPartialEntity<Tool> {
    return {
      ...this.definitionColumns(definition),
      gatewayId: gateway.id,
      gatewaySlug: gateway.slug,
      originalName: definition.name,
      toolHash: toolHash(gateway.id, definition.name),
      enabled: true,
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
    for (let start = 0; start < toolIds.length; start += STATEMENT_ROWS) {
      await em.delete(Tool, { id: In(toolIds.slice(start, start + STATEMENT_ROWS)) });
    }
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
