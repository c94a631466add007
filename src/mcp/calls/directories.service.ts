import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus, type PorticoEvent } from '../../events/event-bus';
import { Server } from '../../servers/server.entity';
import { ServedToolsQuery } from '../../tools/served-tools.query';
import { ToolPresenter } from '../../tools/tool.presenter';
import { toolVisibility } from '../../tools/tool-visibility';
import { type Tool } from '../../tools/tool.entity';
import { type McpScope, scopeKey } from '../mcp-scope';
import { type DirectoryServer, type DirectoryTool, ToolDirectory } from './tool-directory';

/**
 * Builds and caches each scope's directory. Resolution of a name is a map lookup in the cached
 * directory; every replica drops its cache when the bus says the catalogue or a server changed.
 */
@Injectable()
export class Directories implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, Promise<ToolDirectory | null>>();
  private readonly listeners = new Set<(event: PorticoEvent) => void>();
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly served: ServedToolsQuery,
    private readonly presenter: ToolPresenter,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'catalog.changed' || event.type === 'servers.changed')
        this.invalidate(event);
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

  /**
   * Called after every invalidation, with the event that caused it, so that sessions can tell
   * clients a list changed, and end when their server went away.
   */
  onInvalidated(listener: (event: PorticoEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private invalidate(event: PorticoEvent): void {
    this.cache.clear();
    for (const listener of this.listeners) listener(event);
  }

  private async load(scope: McpScope): Promise<ToolDirectory | null> {
    let server: DirectoryServer | null = null;
    let original = false;
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
      original = row.naming === 'original';
    }
    const tools = await this.served.ofScope(server?.id ?? null);
    const entries = tools.map((tool) => this.entry(tool, original));
    if (server && original) {
      // Always-loaded tools are stored by virtual name; this server lists them by upstream name.
      const listed = new Map(entries.map((entry) => [entry.virtualName, entry.name]));
      server.toolSearchAlwaysLoaded = server.toolSearchAlwaysLoaded.map(
        (name) => listed.get(name) ?? name,
      );
    }
    return new ToolDirectory(scope, server, entries);
  }

  private entry(tool: Tool, original: boolean): DirectoryTool & { virtualName: string } {
    const visibility = toolVisibility(tool.meta);
    const presented = this.presenter.toMcpTool(tool);
    const definition =
      original && visibility.includes('model')
        ? { ...presented, name: tool.originalName }
        : presented;
    return {
      virtualName: presented.name,
      id: tool.id,
      name: definition.name,
      gatewayId: tool.gatewayId,
      gatewaySlug: tool.gatewaySlug,
      originalName: tool.originalName,
      toolHash: tool.toolHash,
      visibility,
      definition,
      appConfig: tool.appConfig,
    };
  }
}
