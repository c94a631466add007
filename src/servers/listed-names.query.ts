import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { ToolNameQuery } from '../virtual-names/tool-name.query';
import { toolVisibility } from '../tools/tool-visibility';
import { type JsonObject } from '../common/json-value';
import { describeClash, type NameClash } from './original-names.query';
import { ServerErrorCode, ServerException } from './server.exception';
import { type Server, type ServerNaming } from './server.entity';

/**
 * Finds member tools of a server with overrides that the model would see under one name: an
 * exposed name set by an override against another member's name, as the server's naming and
 * overrides list them. App-only tools are listed under hashed names, which never clash.
 */
@Injectable()
export class ListedNamesQuery {
  constructor(private readonly names: ToolNameQuery) {}

  async clashes(em: EntityManager, serverId: string, naming: ServerNaming): Promise<NameClash[]> {
    const renamed: { any: boolean }[] = await em.query(
      `SELECT EXISTS (SELECT 1 FROM server_tool_override WHERE server_id = $1 AND name IS NOT NULL) AS any`,
      [serverId],
    );
    if (!renamed[0]?.any) return [];
    const rows: {
      originalName: string;
      gatewaySlug: string;
      meta: JsonObject | null;
      override: string | null;
    }[] = await em.query(
      `SELECT t.original_name AS "originalName", t.gateway_slug AS "gatewaySlug", t.meta,
              o.name AS override
       FROM server_tool j JOIN tool t ON t.id = j.tool_id
       LEFT JOIN server_tool_override o ON o.server_id = j.server_id AND o.tool_id = j.tool_id
       WHERE j.server_id = $1`,
      [serverId],
    );
    const byName = new Map<string, string[]>();
    for (const row of rows) {
      if (!toolVisibility(row.meta).includes('model')) continue;
      const name =
        row.override ??
        (naming === 'original'
          ? row.originalName
          : this.names.name(row.gatewaySlug, row.originalName));
      byName.set(name, [...(byName.get(name) ?? []), row.gatewaySlug]);
    }
    return [...byName]
      .filter(([, gateways]) => gateways.length > 1)
      .map(([name, gateways]) => ({ kind: 'tool' as const, name, gateways: gateways.sort() }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** 409 `server.name_clash` when overrides make two members of the server show under one name. */
export async function assertNoClash(
  em: EntityManager,
  listedNames: ListedNamesQuery,
  server: Pick<Server, 'id' | 'naming'>,
): Promise<void> {
  const clashes = await listedNames.clashes(em, server.id, server.naming);
  if (clashes.length === 0) return;
  throw new ServerException(
    ServerErrorCode.NameClash,
    `These member tools would show under one name: ${clashes.slice(0, 10).map(describeClash).join('; ')}. Choose another exposed name.`,
    { clashes },
  );
}
