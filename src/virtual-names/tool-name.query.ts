import { Injectable } from '@nestjs/common';
import { type EntityManager, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { McpSettings } from '../config/slices/mcp.settings';
import { virtualToolName } from './tool-name';

export const VIRTUAL_NAME_INDEX = 'tool_virtual_name_uq';
/** Prompts get virtual names the same way, unique the same way. */
export const PROMPT_VIRTUAL_NAME_INDEX = 'prompt_virtual_name_uq';
/** Trigram index for the admin and REST text filter (`ILIKE '%…%'`). */
export const VIRTUAL_NAME_TRGM_INDEX = 'tool_virtual_name_trgm';

/**
 * Builds SQL over a tool's virtual name, `gateway_slug || SEP || original_name`, without ever
 * splitting a name on the separator (slugs and tool names may both contain it).
 *
 * The separator is inlined as a literal, the same one the unique expression index is built with,
 * so the planner matches the expression to the index. The config validates the separator to
 * `[A-Za-z0-9_.-]`, so inlining it cannot inject SQL.
 */
@Injectable()
export class ToolNameQuery {
  readonly separator: string;

  constructor(config: McpSettings) {
    this.separator = config.toolNameSeparator;
  }

  name(gatewaySlug: string, originalName: string): string {
    return virtualToolName(gatewaySlug, this.separator, originalName);
  }

  /** The SQL expression of the virtual name for the tool table under `alias`. */
  expression(alias = 'tool'): string {
    return `("${alias}"."gateway_slug" || '${this.separator}' || "${alias}"."original_name")`;
  }

  whereNameIs<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, name: string, alias = 'tool') {
    return qb.andWhere(`${this.expression(alias)} = :virtualName`, { virtualName: name });
  }

  whereNameIn<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, names: string[], alias = 'tool') {
    return qb.andWhere(`${this.expression(alias)} = ANY(:virtualNames)`, { virtualNames: names });
  }

  /** Case-insensitive substring match on the virtual name or the description. */
  whereMatches<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, text: string, alias = 'tool') {
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return qb.andWhere(
      `(${this.expression(alias)} ILIKE :virtualNamePattern OR "${alias}"."description" ILIKE :virtualNamePattern)`,
      { virtualNamePattern: pattern },
    );
  }

  orderByName<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, alias = 'tool') {
    return qb.orderBy(this.expression(alias), 'ASC');
  }

  /**
   * Makes the unique expression indexes of tools and prompts match the configured separator. The
   * migrations build them for '-'; another separator rebuilds them once, and fails start-up if
   * names would then clash.
   */
  async ensureIndex(manager: EntityManager): Promise<void> {
    const expression = this.expression('tool').replace(/"tool"\./g, '');
    const wanted: Record<string, string> = {
      [VIRTUAL_NAME_INDEX]: `CREATE UNIQUE INDEX "${VIRTUAL_NAME_INDEX}" ON "tool" (${expression})`,
      [VIRTUAL_NAME_TRGM_INDEX]: `CREATE INDEX "${VIRTUAL_NAME_TRGM_INDEX}" ON "tool" USING gin (${expression} gin_trgm_ops)`,
      [PROMPT_VIRTUAL_NAME_INDEX]: `CREATE UNIQUE INDEX "${PROMPT_VIRTUAL_NAME_INDEX}" ON "prompt" (${expression})`,
    };
    const rows: { indexname: string; indexdef: string }[] = await manager.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)`,
      [Object.keys(wanted)],
    );
    const literal = `'${this.separator}'::text`;
    const stale = Object.keys(wanted).filter(
      (name) => !rows.some((row) => row.indexname === name && row.indexdef.includes(literal)),
    );
    if (stale.length === 0) return;
    await manager.transaction(async (em) => {
      for (const name of stale) {
        await em.query(`DROP INDEX IF EXISTS "${name}"`);
        await em.query(wanted[name]!);
      }
    });
  }
}
