import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { McpAccess } from '../auth/mcp-access';
import { type Principal } from '../auth/principal';
import { ServerSettings } from '../config/slices/server.settings';
import { RequestValidationException } from '../common/request-validation.exception';
import { gatewaySlug } from '../gateways/gateway-slug';
import { Server } from '../servers/server.entity';
import { McpRegistryErrorCode, McpRegistryException } from './mcp-registry.exception';
import { OFFICIAL_META, type OfficialMeta, type ServerResponse } from './server-json';

/** Portico's own namespace in each entry's `_meta`. */
export const PORTICO_META = 'dev.portico/server';
const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** Servers read for one answer at most; Portico's catalogue of virtual servers is far smaller. */
const SERVERS_MAX = 10_000;
export const SUB_REGISTRY_PAGE_MAX = 100;
const SUB_REGISTRY_PAGE_DEFAULT = 30;

export interface SubRegistryQuery {
  cursor?: string;
  limit?: number;
  search?: string;
  updatedSince?: Date;
  version?: string;
}

export interface SubRegistryPage {
  servers: ServerResponse[];
  metadata: { nextCursor?: string; count: number };
}

interface Listed {
  server: Server;
  name: string;
}

/**
 * Portico's catalogue as an MCP Registry (v0.1 read API): each enabled virtual server one entry
 * whose remote is its MCP endpoint, listed only to callers the MCP endpoint itself would let in
 * (McpAccess, the same decision as every MCP request), so that a registry client shows a person
 * exactly the servers they may use.
 */
@Injectable()
export class SubRegistryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ServerSettings,
    private readonly access: McpAccess,
  ) {}

  async list(principal: Principal, query: SubRegistryQuery): Promise<SubRegistryPage> {
    const limit = Math.min(query.limit ?? SUB_REGISTRY_PAGE_DEFAULT, SUB_REGISTRY_PAGE_MAX);
    const after = query.cursor === undefined ? null : cursorName(query.cursor);
    const search = query.search?.toLowerCase();
    const matching = (await this.reachable(principal)).filter(
      ({ server, name }) =>
        (after === null || name > after) &&
        (search === undefined ||
          name.toLowerCase().includes(search) ||
          server.name.toLowerCase().includes(search)) &&
        (query.updatedSince === undefined || server.updatedAt >= query.updatedSince) &&
        (query.version === undefined ||
          query.version === 'latest' ||
          query.version === versionOf(server)),
    );
    const page = matching.slice(0, limit);
    const last = page.at(-1);
    return {
      servers: page.map((listed) => this.entryOf(listed)),
      metadata: {
        ...(matching.length > limit && last
          ? { nextCursor: Buffer.from(last.name).toString('base64url') }
          : {}),
        count: page.length,
      },
    };
  }

  /** Every version of one server: Portico keeps only the current one. */
  async versions(principal: Principal, name: string): Promise<SubRegistryPage> {
    const listed = await this.find(principal, name);
    return { servers: [this.entryOf(listed)], metadata: { count: 1 } };
  }

  async version(principal: Principal, name: string, version: string): Promise<ServerResponse> {
    const listed = await this.find(principal, name);
    if (version !== 'latest' && version !== versionOf(listed.server))
      throw notFound(
        `'${name}' has no version '${version}' here; its version is ${versionOf(listed.server)}.`,
      );
    return this.entryOf(listed);
  }

  private async find(principal: Principal, name: string): Promise<Listed> {
    const listed = (await this.reachable(principal)).find((candidate) => candidate.name === name);
    // One the caller may not use is as missing as one that does not exist.
    if (!listed) throw notFound(`No server '${name.slice(0, 200)}' is listed here.`);
    return listed;
  }

  /**
   * The enabled servers with their registry names, sorted by name, that the caller's MCP access
   * lets in. Names are given over all servers, oldest first, so that a name never depends on who
   * asks: a second server whose name gives the same slug gets its id's first characters added.
   */
  private async reachable(principal: Principal): Promise<Listed[]> {
    const servers = await this.dataSource
      .getRepository(Server)
      .createQueryBuilder('server')
      .select([
        'server.id',
        'server.name',
        'server.description',
        'server.enabled',
        'server.teamId',
        'server.createdAt',
        'server.updatedAt',
      ])
      .orderBy('server.created_at', 'ASC')
      .addOrderBy('server.id', 'ASC')
      .take(SERVERS_MAX)
      .getMany();
    const namespace = reverseDns(this.config.publicUrl);
    const taken = new Set<string>();
    const listed: Listed[] = [];
    for (const server of servers) {
      const slug = gatewaySlug(server.name) || `server-${server.id.slice(0, 8)}`;
      const unique = taken.has(slug) ? `${slug}-${server.id.slice(0, 8)}` : slug;
      taken.add(unique);
      if (!server.enabled) continue;
      const decision = await this.access.check(principal, { kind: 'server', serverId: server.id });
      if (decision.allowed) listed.push({ server, name: `${namespace}/${unique}` });
    }
    return listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private entryOf({ server, name }: Listed): ServerResponse {
    const description = (
      server.description.trim() || `Virtual server '${server.name}' of Portico`
    ).slice(0, 100);
    return {
      server: {
        $schema: SCHEMA,
        name,
        title: server.name.slice(0, 100),
        description,
        version: versionOf(server),
        remotes: [
          { type: 'streamable-http', url: `${this.config.publicUrl}/servers/${server.id}/mcp` },
        ],
      },
      _meta: {
        [OFFICIAL_META]: {
          status: 'active',
          publishedAt: server.createdAt.toISOString(),
          updatedAt: server.updatedAt.toISOString(),
          isLatest: true,
        } satisfies OfficialMeta,
        [PORTICO_META]: { serverId: server.id, name: server.name, teamId: server.teamId },
      },
    };
  }
}

/** A server's version: its last change, in seconds, as the patch number (Portico keeps one version). */
export function versionOf(server: Pick<Server, 'updatedAt'>): string {
  return `1.0.${Math.floor(server.updatedAt.getTime() / 1000)}`;
}

/** The host of Portico's public URL in reverse-DNS order: `mcp.example.com` → `com.example.mcp`. */
export function reverseDns(publicUrl: string): string {
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '').replace(/[^A-Za-z0-9.-]/g, '-');
  return (
    host
      .split('.')
      .filter((label) => label !== '')
      .reverse()
      .join('.') || 'portico'
  );
}

function cursorName(cursor: string): string {
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]*$/.test(cursor))
    throw new RequestValidationException([
      {
        property: 'cursor',
        constraints: { cursor: 'cursor is not one this registry gave' },
        children: [],
      },
    ]);
  return Buffer.from(cursor, 'base64url').toString('utf8');
}

function notFound(message: string): McpRegistryException {
  return new McpRegistryException(McpRegistryErrorCode.NotFound, message);
}
