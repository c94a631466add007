import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus } from '../../events/event-bus';
import { Server } from '../../servers/server.entity';
import { ToolNameQuery } from '../../tools/tool-name.query';
import { ToolPresenter } from '../../tools/tool.presenter';
import { toolVisibility } from '../../tools/tool-visibility';
import { Tool } from '../../tools/tool.entity';
import { type McpScope, scopeKey } from '../mcp-scope';
import { type DirectoryServer, type DirectoryTool, ToolDirectory } from './tool-directory';

/**
 * Builds and caches each scope's ToolDirectory. Resolution of a name is a map lookup in the cached
 * directory; every replica drops its cache when the bus says the catalogue or a server changed.
 */
@Injectable()
export class ToolDirectoryService implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, Promise<ToolDirectory | null>>();
  private readonly listeners = new Set<() => void>();
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly names: ToolNameQuery,
    private readonly presenter: ToolPresenter,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'catalog.changed' || event.type === 'servers.changed') this.invalidate();
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The scope's directory; null when its server does not exist or is disabled. */
  get(scope: McpScope): Promise<ToolDirectory | null> {
    const key = scopeKey(scope);
    let directory = this.cache.get(key);
    if (!directory) {
      directory = this.load(scope);
      this.cache.set(key, directory);
      directory.catch(() => this.cache.get(key) === directory && this.cache.delete(key));
    }
    return directory;
  }

  /** Called after every invalidation, so that sessions can tell clients the list changed. */
  onInvalidated(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  invalidate(): void {
    this.cache.clear();
    for (const listener of this.listeners) listener();
  }

  private async load(scope: McpScope): Promise<ToolDirectory | null> {
    let server: DirectoryServer | null = null;
    const qb = this.dataSource
      .getRepository(Tool)
      .createQueryBuilder('tool')
      .innerJoin('tool.gateway', 'gateway', 'gateway.enabled = true')
      .where('tool.enabled = true');
    if (scope.kind === 'server') {
      const row = await this.dataSource
        .getRepository(Server)
        .findOneBy({ id: scope.serverId, enabled: true });
      if (!row) return null;
      server = {
        id: row.id,
        name: row.name,
        toolSearchEnabled: row.toolSearchEnabled,
        toolSearchAlwaysLoaded: row.toolSearchAlwaysLoaded,
      };
      qb.innerJoin(
        'server_tool',
        'membership',
        'membership.tool_id = tool.id AND membership.server_id = :serverId',
        {
          serverId: scope.serverId,
        },
      );
    }
    const tools = await this.names.orderByName(qb).getMany();
    return new ToolDirectory(
      scope,
      server,
      tools.map((tool) => this.entry(tool)),
    );
  }

  private entry(tool: Tool): DirectoryTool {
    const definition = this.presenter.toMcpTool(tool);
    return {
      id: tool.id,
      name: definition.name,
      gatewayId: tool.gatewayId,
      gatewaySlug: tool.gatewaySlug,
      originalName: tool.originalName,
      toolHash: tool.toolHash,
      visibility: toolVisibility(tool.meta),
      definition,
      appConfig: tool.appConfig,
    };
  }
}
