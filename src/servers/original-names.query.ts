import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { toolVisibility } from '../tools/tool-visibility';
import { type JsonObject } from '../common/json-value';

export const CLASH_KINDS = ['tool', 'prompt', 'resource', 'resourceTemplate'] as const;
export type ClashKind = (typeof CLASH_KINDS)[number];

/** Members of one server that would show under one upstream name or URI. */
export interface NameClash {
  kind: ClashKind;
  /** The upstream name, URI or URI template they share. */
  name: string;
  /** Slugs of the gateways that supply them, sorted. */
  gateways: string[];
}

/** Where each kind's upstream name is stored. */
const SOURCES: Record<ClashKind, { join: string; column: string; table: string; key: string }> = {
  tool: { join: 'server_tool', column: 'tool_id', table: 'tool', key: 'original_name' },
  prompt: { join: 'server_prompt', column: 'prompt_id', table: 'prompt', key: 'original_name' },
  resource: { join: 'server_resource', column: 'resource_id', table: 'resource', key: 'uri' },
  resourceTemplate: {
    join: 'server_resource_template',
    column: 'template_id',
    table: 'resource_template',
    key: 'uri_template',
  },
};

/**
 * Finds what a server with naming `original` could not tell apart: two member tools the model
 * sees with one upstream name, two prompts with one name, two resources with one URI, two
 * templates with one template. App-only tools are listed under hashed names, which never clash.
 * Members count whether enabled or not, so enabling one later cannot make a clash.
 */
@Injectable()
export class OriginalNamesQuery {
  async clashes(em: EntityManager, serverId: string): Promise<NameClash[]> {
    const clashes: NameClash[] = [];
    for (const kind of CLASH_KINDS) {
      const { join, column, table, key } = SOURCES[kind];
      // Only names held by more than one member are read, so a large server costs one grouping.
      const rows: { name: string; gatewaySlug: string; meta: JsonObject | null }[] = await em.query(
        `WITH member AS (
           SELECT m.${key} AS name, m.gateway_slug, ${kind === 'tool' ? 'm.meta' : 'NULL::jsonb AS meta'}
           FROM ${join} j JOIN ${table} m ON m.id = j.${column}
           WHERE j.server_id = $1)
         SELECT name, gateway_slug AS "gatewaySlug", meta FROM member
         WHERE name IN (SELECT name FROM member GROUP BY name HAVING count(*) > 1)
         ORDER BY name, gateway_slug`,
        [serverId],
      );
      const byName = new Map<string, string[]>();
      for (const row of rows) {
        if (kind === 'tool' && !toolVisibility(row.meta).includes('model')) continue;
        byName.set(row.name, [...(byName.get(row.name) ?? []), row.gatewaySlug]);
      }
      for (const [name, gateways] of byName)
        if (gateways.length > 1) clashes.push({ kind, name, gateways });
    }
    return clashes;
  }
}

/** "tool 'get_time' (gateways a, b)" */
export function describeClash(clash: NameClash): string {
  const noun = clash.kind === 'resourceTemplate' ? 'resource template' : clash.kind;
  return `${noun} '${clash.name}' (gateways ${clash.gateways.join(', ')})`;
}
