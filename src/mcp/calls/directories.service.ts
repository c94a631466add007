import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus, type PorticoEvent } from '../../events/event-bus';
import { type Prompt } from '../../prompts/prompt.entity';
import { ServedPromptsQuery } from '../../prompts/served-prompts.query';
import { type ResourceTemplate } from '../../resources/resource-template.entity';
import { virtualUri } from '../../resources/resource-uri';
import { type Resource } from '../../resources/resource.entity';
import { ServedResourcesQuery } from '../../resources/served-resources.query';
import { Server } from '../../servers/server.entity';
import { ServedToolsQuery } from '../../tools/served-tools.query';
import { ToolNameQuery } from '../../tools/tool-name.query';
import { ToolPresenter } from '../../tools/tool.presenter';
import { toolVisibility } from '../../tools/tool-visibility';
import { type Tool } from '../../tools/tool.entity';
import { type McpScope, scopeKey } from '../mcp-scope';
import { PromptDirectory, type DirectoryPrompt } from './prompt-directory';
import {
  type DirectoryResource,
  type DirectoryTemplate,
  isAppPage,
  ResourceDirectory,
} from './resource-directory';
import { ScopeDirectory } from './scope-directory';
import { type DirectoryServer, type DirectoryTool, ToolDirectory } from './tool-directory';

/** How a scope names its members: the gateway-wide endpoint always prefixes. */
interface Naming {
  original: boolean;
}

/**
 * Builds and caches each scope's directory. Resolution of a name is a map lookup in the cached
 * directory; every replica drops its cache when the bus says the catalogue or a server changed.
 */
@Injectable()
export class Directories implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, Promise<ScopeDirectory | null>>();
  private readonly listeners = new Set<(event: PorticoEvent) => void>();
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly tools: ServedToolsQuery,
    private readonly resources: ServedResourcesQuery,
    private readonly prompts: ServedPromptsQuery,
    private readonly names: ToolNameQuery,
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
  get(scope: McpScope): Promise<ScopeDirectory | null> {
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

  private async load(scope: McpScope): Promise<ScopeDirectory | null> {
    let server: DirectoryServer | null = null;
    const naming: Naming = { original: false };
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
      naming.original = row.naming === 'original';
    }
    const serverId = server?.id ?? null;
    const [tools, resources, templates, prompts, gateways] = await Promise.all([
      this.tools.ofScope(serverId),
      this.resources.resources(serverId),
      this.resources.templates(serverId),
      this.prompts.ofScope(serverId),
      serverId === null ? this.resources.enabledGateways() : null,
    ]);
    const toolEntries = tools.map((tool) => this.tool(tool, naming));
    if (server && naming.original) {
      // Always-loaded tools are stored by virtual name; this server lists them by upstream name.
      const listed = new Map(toolEntries.map((entry) => [entry.virtualName, entry.name]));
      server.toolSearchAlwaysLoaded = server.toolSearchAlwaysLoaded.map(
        (name) => listed.get(name) ?? name,
      );
    }
    const slugs = new Map(
      [...resources, ...templates].map((entry) => [entry.gatewaySlug, entry.gatewayId]),
    );
    return new ScopeDirectory(
      scope,
      server,
      new ToolDirectory(scope, server, toolEntries),
      new ResourceDirectory(
        resources
          .filter((resource) => !isAppPage(resource.uri))
          .map((resource) => this.resource(resource, naming)),
        templates.map((template) => this.template(template, naming)),
        naming.original ? null : { gateways: gateways ?? slugs, readAny: gateways !== null },
      ),
      new PromptDirectory(prompts.map((prompt) => this.prompt(prompt, naming))),
    );
  }

  private tool(tool: Tool, naming: Naming): DirectoryTool & { virtualName: string } {
    const visibility = toolVisibility(tool.meta);
    const presented = this.presenter.toMcpTool(tool);
    const definition =
      naming.original && visibility.includes('model')
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

  private resource(resource: Resource, naming: Naming): DirectoryResource {
    const uri = naming.original ? resource.uri : virtualUri(resource.gatewaySlug, resource.uri);
    return {
      uri,
      gatewayId: resource.gatewayId,
      gatewaySlug: resource.gatewaySlug,
      upstreamUri: resource.uri,
      definition: {
        uri,
        name: resource.name,
        ...(resource.title === null ? {} : { title: resource.title }),
        ...(resource.description ? { description: resource.description } : {}),
        ...(resource.mimeType === null ? {} : { mimeType: resource.mimeType }),
        ...(resource.size === null ? {} : { size: Number(resource.size) }),
        ...(resource.annotations === null ? {} : { annotations: resource.annotations }),
        ...(resource.meta === null ? {} : { _meta: resource.meta }),
      },
    };
  }

  private template(template: ResourceTemplate, naming: Naming): DirectoryTemplate {
    const uriTemplate = naming.original
      ? template.uriTemplate
      : virtualUri(template.gatewaySlug, template.uriTemplate);
    return {
      uriTemplate,
      upstreamTemplate: template.uriTemplate,
      gatewayId: template.gatewayId,
      gatewaySlug: template.gatewaySlug,
      definition: {
        uriTemplate,
        name: template.name,
        ...(template.title === null ? {} : { title: template.title }),
        ...(template.description ? { description: template.description } : {}),
        ...(template.mimeType === null ? {} : { mimeType: template.mimeType }),
        ...(template.annotations === null ? {} : { annotations: template.annotations }),
        ...(template.meta === null ? {} : { _meta: template.meta }),
      },
    };
  }

  private prompt(prompt: Prompt, naming: Naming): DirectoryPrompt {
    const name = naming.original
      ? prompt.originalName
      : this.names.name(prompt.gatewaySlug, prompt.originalName);
    return {
      name,
      gatewayId: prompt.gatewayId,
      gatewaySlug: prompt.gatewaySlug,
      originalName: prompt.originalName,
      definition: {
        name,
        ...(prompt.title === null ? {} : { title: prompt.title }),
        ...(prompt.description ? { description: prompt.description } : {}),
        ...(prompt.arguments.length > 0 ? { arguments: prompt.arguments } : {}),
        ...(prompt.meta === null ? {} : { _meta: prompt.meta }),
      },
    };
  }
}
