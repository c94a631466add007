import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { McpSettings } from '../../config/slices/mcp.settings';
import { EventBus } from '../../events/event-bus';
import { Metrics } from '../../observability/metrics';
import { ServedPromptsQuery } from '../../prompts/served-prompts.query';
import { ServedResourcesQuery } from '../../resources/served-resources.query';
import { ConsolidatedToolsQuery } from '../../consolidated-tools/consolidated-tools.query';
import { Server } from '../../servers/server.entity';
import { ServedToolsQuery } from '../../tools/served-tools.query';
import { ToolNameQuery } from '../../virtual-names/tool-name.query';
import { ToolPresenter } from '../../tools/tool.presenter';
import { toolVisibility } from '../../tools/tool-visibility';
import { type Tool } from '../../tools/tool.entity';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import {
  MODERN_PROTOCOL_VERSIONS,
  SESSION_PROTOCOL_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../upstream/eras/protocol-era';
import { idOf, McpRefusal } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import {
  directoryPrompt,
  directoryResource,
  directoryTemplate,
  type Naming,
} from './directory-entries';
import { PromptDirectory } from './prompt-directory';
import { isAppPage, ResourceDirectory } from './resource-directory';
import { type ScopeGuard, ScopeDirectory } from './scope-directory';
import { buildHooks } from '../../policies/hooks/hook-registry';
import { type HookConfig } from '../../policies/hooks/hook-config';
import { HookRefusal, type ToolCallHook } from '../../policies/hooks/tool-call-hook';
import { policyToolOf } from '../../policies/policy-tool';
import { ScopePolicies } from '../../policies/scope-policies';
import { limitRules } from '../../rate-limits/rate-limiter.service';
import { applyToolOverride, type ToolOverrideValues } from '../../servers/tool-override';
import { type DirectoryServer, type DirectoryTool } from './directory-tool';
import { ToolDirectory } from './tool-directory';
import { consolidatedEntry } from './consolidated-entry';
import { ScopeCache } from './scope-cache';
import { errorMessage } from '../../common/error-message';

/** Tools presented between two yields to the event loop while a directory is built. */
const BUILD_SLICE = 2000;

/**
 * Builds and caches each scope's directory. Resolution of a name is a map lookup in the cached
 * directory; every replica rebuilds it when the bus says the catalogue or a server changed, and
 * while the database is unavailable keeps serving the one it had (see LastKnownCache).
 */
@Injectable()
export class Directories implements OnModuleInit, OnModuleDestroy {
  private readonly cache: ScopeCache<ScopeDirectory | null>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly tools: ServedToolsQuery,
    private readonly resources: ServedResourcesQuery,
    private readonly prompts: ServedPromptsQuery,
    private readonly consolidated: ConsolidatedToolsQuery,
    private readonly names: ToolNameQuery,
    private readonly presenter: ToolPresenter,
    bus: EventBus,
    private readonly policies: ScopePolicies,
    private readonly config: McpSettings,
    metrics: Metrics,
  ) {
    this.cache = new ScopeCache(
      bus,
      metrics,
      new Logger(Directories.name),
      'directory',
      'the directory',
    );
  }

  onModuleInit(): void {
    this.cache.follow();
  }

  onModuleDestroy(): void {
    this.cache.close();
  }

  /** The scope's directory; null when its server does not exist or is disabled. */
  get(scope: McpScope): Promise<ScopeDirectory | null> {
    // Keyed by the server's id, which no `/mcp` (the empty key) can be.
    return this.cache.get(scope.kind === 'all' ? '' : scope.serverId, () => this.load(scope));
  }

  /**
   * A server that takes clients of one era refuses the other's requests as a server of that era
   * only would: 400 and -32022 naming the versions it takes, from which a client of both eras
   * learns to speak the other.
   */
  async assertTakes(scope: McpScope, era: '2025' | '2026-07-28', body: unknown): Promise<void> {
    if (scope.kind !== 'server') return;
    const takes = (await this.get(scope))?.server?.clientEras ?? 'any';
    if (takes === 'any' || takes === era) return;
    const params = (body as { params?: { protocolVersion?: unknown; _meta?: unknown } } | null)
      ?.params;
    const requested =
      era === '2025'
        ? params?.protocolVersion
        : (params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
    const supported = takes === '2025' ? SESSION_PROTOCOL_VERSIONS : MODERN_PROTOCOL_VERSIONS;
    throw new McpRefusal(
      400,
      `Unsupported protocol version: this server takes only clients of the ${takes} era`,
      UNSUPPORTED_PROTOCOL_VERSION,
      idOf(body),
      { supported: [...supported], ...(typeof requested === 'string' ? { requested } : {}) },
    );
  }

  private async load(scope: McpScope): Promise<ScopeDirectory | null> {
    let server: DirectoryServer | null = null;
    let hooks: HookConfig[] = [];
    const naming: Naming = {
      original: false,
      overrides: new Map(),
      virtualName: (slug, name) => this.names.name(slug, name),
    };
    if (scope.kind === 'server') {
      const row = await this.dataSource
        .getRepository(Server)
        .findOneBy({ id: scope.serverId, enabled: true });
      if (!row) return null;
      server = {
        id: row.id,
        name: row.name,
        clientEras: row.clientEras,
        toolSearchEnabled: row.toolSearchEnabled,
        toolSearchAlwaysLoaded: row.toolSearchAlwaysLoaded,
      };
      naming.original = row.naming === 'original';
      hooks = row.hooks;
    }
    const serverId = server?.id ?? null;
    const [overrides, policy, limits] = await Promise.all([
      serverId === null ? [] : this.overridesOf(serverId),
      this.policies.load(serverId),
      limitRules(this.dataSource, serverId),
    ]);
    naming.overrides = new Map(overrides.map(({ toolId, ...values }) => [toolId, values]));
    const [tools, consolidated, resources, templates, prompts, gateways, withdrawn, skills] =
      await Promise.all([
        this.tools.ofScope(serverId),
        this.consolidated.ofScope(serverId),
        this.resources.resources(serverId),
        this.resources.templates(serverId),
        this.prompts.ofScope(serverId),
        serverId === null ? this.resources.enabledGateways() : null,
        this.resources.withdrawn(),
        this.skillStates(serverId),
      ]);
    const toolEntries: ReturnType<Directories['tool']>[] = [];
    for (let start = 0; start < tools.length; start += BUILD_SLICE) {
      // Large catalogues are built in slices, so that no request waits long behind a rebuild.
      if (start > 0) await yieldToEventLoop();
      for (const tool of tools.slice(start, start + BUILD_SLICE))
        toolEntries.push(this.tool(tool, naming));
    }
    // A consolidated tool whose name a tool of this scope lists (under its naming) is not served.
    const taken = new Set(toolEntries.map((entry) => entry.name));
    const consolidatedEntries = consolidated.flatMap((row) => {
      const entry = taken.has(row.name)
        ? null
        : consolidatedEntry(
            row,
            row.members.map(({ target, tool }) => ({ target, tool: this.tool(tool, naming) })),
          );
      return entry ? [entry] : [];
    });
    if (server && (naming.original || naming.overrides.size > 0)) {
      // Always-loaded tools are stored by virtual name; this server may list them otherwise.
      const listed = new Map(toolEntries.map((entry) => [entry.virtualName, entry.name]));
      server.toolSearchAlwaysLoaded = server.toolSearchAlwaysLoaded.map(
        (name) => listed.get(name) ?? name,
      );
    }
    const slugs = new Map(
      [...resources, ...templates].map((entry) => [entry.gatewaySlug, entry.gatewayId]),
    );
    const guard: ScopeGuard = {
      policy,
      limits,
      hooks: guardHooks(hooks),
    };
    return new ScopeDirectory(
      scope,
      server,
      new ToolDirectory(scope, server, [...toolEntries, ...consolidatedEntries], {
        stamp: policy.stamp,
        search: this.config.mcpToolSearch,
      }),
      new ResourceDirectory(
        resources
          .filter((resource) => !isAppPage(resource.uri))
          .map((resource) => directoryResource(resource, naming)),
        templates.map((template) => directoryTemplate(template, naming)),
        naming.original ? null : { gateways: gateways ?? slugs, readAny: gateways !== null },
        // The list leaves out the files of skills not served to the caller, and the UI resources
        // of tools its policies hide: when either changes, so does the list.
        { withdrawn, stamp: `${policy.stamp}\n${skills}` },
      ),
      new PromptDirectory(prompts.map((prompt) => directoryPrompt(prompt, naming))),
      guard,
    );
  }

  private overridesOf(serverId: string): Promise<(ToolOverrideValues & { toolId: string })[]> {
    return this.dataSource.query(
      `SELECT tool_id AS "toolId", name, title, description, annotations
       FROM server_tool_override WHERE server_id = $1`,
      [serverId],
    );
  }

  /** The skills' states, as one string: enabled or not, their hashes (approved or held), members here or not. */
  private async skillStates(serverId: string | null): Promise<string> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT id, enabled, manifest_hash, pinned_hash${
        serverId === null
          ? ''
          : ', EXISTS (SELECT 1 FROM server_skill m WHERE m.skill_id = skill.id AND m.server_id = $1) AS member'
      } FROM skill ORDER BY id`,
      serverId === null ? [] : [serverId],
    );
    return JSON.stringify(rows);
  }

  private tool(tool: Tool, naming: Naming): DirectoryTool & { virtualName: string } {
    const visibility = toolVisibility(tool.meta);
    const presented = this.presenter.toMcpTool(tool);
    const override = visibility.includes('model') ? naming.overrides.get(tool.id) : undefined;
    let definition =
      naming.original && visibility.includes('model')
        ? { ...presented, name: tool.originalName }
        : presented;
    if (override) definition = applyToolOverride(definition, override);
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
      contentHash: tool.contentHash,
      override: override ?? null,
      policy: policyToolOf(
        { ...tool, pinnedHash: tool.pin.pinnedHash },
        this.names.name(tool.gatewaySlug, tool.originalName),
        definition.name,
        override?.annotations,
      ),
    };
  }
}

/**
 * The server's hooks. Settings were checked when saved; should they no longer build (a hook gone
 * from this version), every call fails with the reason rather than running without them.
 */
function guardHooks(configs: readonly HookConfig[]): readonly ToolCallHook[] {
  if (configs.length === 0) return [];
  try {
    return buildHooks(configs);
  } catch (error) {
    const reason = errorMessage(error);
    return [
      {
        name: 'configuration',
        before: () => {
          throw new HookRefusal(`This server's hooks cannot run: ${reason}`);
        },
      },
    ];
  }
}
