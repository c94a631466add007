import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventBus } from '../../events/event-bus';
import { policyToolOf, type PolicyTool } from '../../policies/policy-tool';
import { ServedToolsQuery } from '../../tools/served-tools.query';
import { hashedBackendName } from '../../tools/tool-hash';
import { type Tool } from '../../tools/tool.entity';
import { ToolNameQuery } from '../../virtual-names/tool-name.query';
import { type ToolAppConfig } from '../../tools/tool-app-config';
import { type ToolVisibility, toolVisibility } from '../../tools/tool-visibility';
import { type JsonObject } from '../../common/json-value';

/** A served tool (enabled, of an enabled gateway) found by its hash. */
export interface AppTool {
  id: string;
  gatewayId: string;
  gatewaySlug: string;
  originalName: string;
  toolHash: string;
  title: string | null;
  visibility: ToolVisibility[];
  meta: JsonObject | null;
  appConfig: ToolAppConfig | null;
  /** What policies judge, as for the same tool reached by any other name. */
  policy: PolicyTool;
}

const CACHE_LIMIT = 10_000;

/**
 * Finds tools by hash for MCP Apps: hashed backend calls and per-tool UI resources. Found tools
 * are cached until the catalogue changes on any replica; misses are not, so a tool a sync has just
 * added is found at once.
 */
@Injectable()
export class AppToolLookup implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, Promise<AppTool | null>>();
  private unsubscribe?: () => void;

  constructor(
    private readonly served: ServedToolsQuery,
    private readonly names: ToolNameQuery,
    private readonly bus: EventBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'catalog.changed') this.cache.clear();
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  byHash(hash: string): Promise<AppTool | null> {
    const cached = this.cache.get(hash);
    if (cached) return cached;
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    const loading = this.load(hash);
    this.cache.set(hash, loading);
    const forget = () => this.cache.get(hash) === loading && this.cache.delete(hash);
    void loading.then((tool) => tool ?? forget(), forget);
    return loading;
  }

  /**
   * Every served tool of the gateway that apps may call, read afresh each time: what an app's page
   * may address, before it is narrowed to what its caller may call.
   */
  async appCallable(gatewayId: string): Promise<AppTool[]> {
    const rows = await this.served.ofGateway(gatewayId);
    return rows.map((tool) => this.appTool(tool)).filter((tool) => tool.visibility.includes('app'));
  }

  private async load(hash: string): Promise<AppTool | null> {
    const tool = await this.served.byHash(hash);
    return tool && this.appTool(tool);
  }

  private appTool(tool: Tool): AppTool {
    return {
      id: tool.id,
      gatewayId: tool.gatewayId,
      gatewaySlug: tool.gatewaySlug,
      originalName: tool.originalName,
      toolHash: tool.toolHash,
      title: tool.title,
      visibility: toolVisibility(tool.meta),
      meta: tool.meta,
      appConfig: tool.appConfig,
      policy: policyToolOf(
        { ...tool, pinnedHash: tool.pin.pinnedHash },
        this.names.name(tool.gatewaySlug, tool.originalName),
        hashedBackendName(tool.toolHash, tool.originalName),
      ),
    };
  }
}
