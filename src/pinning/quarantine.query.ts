import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type TeamScope } from '../auth/team-scope';
import { type Page } from '../common/page.dto';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { type QuarantineItemDto, type QuarantineQueryDto } from './dto/quarantine.dto';
import { PIN_KINDS, PINNED_KINDS, type PinKind } from './pinned-kinds';

interface QueueRow extends Omit<QuarantineItemDto, 'findings'> {
  findings: number | string;
}

/**
 * The entries held back from clients, across tools, prompts and resource templates, as far as a
 * scope sees their gateways. Each table's partial index holds only its held entries, so the
 * queue and its count stay cheap whatever the size of the catalogue.
 */
@Injectable()
export class QuarantineQuery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
  ) {}

  /** The longest held first. */
  async queue(query: QuarantineQueryDto, scope: TeamScope): Promise<Page<QuarantineItemDto>> {
    const { sql, params } = this.held(query, scope);
    const [{ total }] = await this.dataSource.query<[{ total: number }]>(
      `SELECT count(*)::int AS total FROM (${sql}) AS held`,
      params,
    );
    const rows = await this.dataSource.query<QueueRow[]>(
      `SELECT * FROM (${sql}) AS held ORDER BY since, kind, name, id
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, query.offset],
    );
    return {
      items: rows.map((row) => ({ ...row, findings: Number(row.findings) })),
      total,
    };
  }

  /** How many entries this scope sees held back: for the navigation and the dashboard. */
  async count(scope: TeamScope, gatewayId?: string): Promise<number> {
    const { sql, params } = this.held(gatewayId ? { gatewayId } : {}, scope);
    const [{ total }] = await this.dataSource.query<[{ total: number }]>(
      `SELECT count(*)::int AS total FROM (${sql}) AS held`,
      params,
    );
    return total;
  }

  private held(
    filter: { gatewayId?: string; kind?: PinKind },
    scope: TeamScope,
  ): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const conditions = ['entry.quarantine IS NOT NULL'];
    if (filter.gatewayId) {
      params.push(filter.gatewayId);
      conditions.push(`entry.gateway_id = $${params.length}`);
    }
    if (!scope.everything) {
      params.push([...scope.teamIds]);
      conditions.push(`(gateway.team_id IS NULL OR gateway.team_id = ANY($${params.length}))`);
    }
    const selects = PIN_KINDS.filter((kind) => !filter.kind || filter.kind === kind).map((kind) => {
      const spec = PINNED_KINDS[kind];
      return `SELECT '${kind}'::text AS kind, entry.id, ${spec.nameSql(this.names, 'entry')} AS name,
            entry.gateway_id AS "gatewayId", entry.gateway_slug AS "gatewaySlug",
            entry.quarantine->>'reason' AS reason, entry.quarantine->>'since' AS since,
            (entry.quarantine->'held') IS NOT NULL AS changed,
            COALESCE(entry.quarantine#>>'{held,hash}', entry.content_hash) AS hash,
            CASE WHEN jsonb_typeof(entry.findings) = 'array' THEN jsonb_array_length(entry.findings) ELSE 0 END AS findings
          FROM "${spec.table}" AS entry JOIN gateway ON gateway.id = entry.gateway_id
          WHERE ${conditions.join(' AND ')}`;
    });
    return { sql: selects.join(' UNION ALL '), params };
  }
}
