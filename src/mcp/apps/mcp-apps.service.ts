import { Injectable, Logger } from '@nestjs/common';
import {
  type ReadResourceResult,
  type Resource,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import {
  answersToHashedName,
  hashedBackendName,
  parseHashedBackendName,
} from '../../tools/tool-hash';
import {
  parsePrefabResourceUri,
  toolUi,
  UI_EXTENSION,
  UI_RESOURCE_MIME_TYPE,
} from '../../tools/tool-ui';
import { type PolicyTool } from '../../policies/policy-tool';
import { type ToolDirectory } from '../directory/tool-directory';
import { RESOURCE_NOT_FOUND, RpcError, UPSTREAM_PROTOCOL_ERROR } from '../protocol/mcp-errors';
import { type AppTool, AppToolLookup } from './app-tool-lookup.service';
import { callRewriterScript, injectFirst } from './call-rewriter';
import { PrefabRenderer } from './prefab/prefab-renderer.service';
import { type DroppedSources, mergeUiResourceMeta } from './ui-resource-meta';
import { isJsonObject } from '../../common/json-value';
import { Memo } from '../../common/memo';

/** Where a tools/call goes: the tool's gateway, under its upstream name; and what policies judge. */
export interface CallTarget {
  id: string;
  gatewayId: string;
  gatewaySlug: string;
  originalName: string;
  policy: PolicyTool;
}

/**
 * How to answer a read of a UI resource: with content built here (the Prefab renderer), or from
 * the upstream's own page, which the caller reads in the session and hands to `bridge`.
 */
export type UiRead =
  | { kind: 'built'; result: ReadResourceResult }
  | { kind: 'upstream'; tool: AppTool; upstreamUri: string; hashes: Map<string, string> };

/** The upstream's page and its `resources/list` entry (null when it has none, or cannot list). */
export interface UpstreamUi {
  read: ReadResourceResult;
  listed: Resource | null;
}

/** How many UIs' CSP warnings are remembered; past it they are all forgotten, and said again. */
const WARNED_LIMIT = 256;

export function resourceNotFound(uri: string): RpcError {
  return new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

/**
 * MCP Apps through the gateway: hashed backend names on tools/call, and the per-tool UI resources
 * `ui://prefab/tool/<tool_hash>/renderer.html`, listed from the directory and built on each read.
 *
 * Who may use what: a session may read the UI of a tool of its scope; and, through its apps, call
 * and read any app-visible tool of a gateway that supplies one of its apps (a tool with a UI). An
 * app may reach its own upstream's backend tools, and nothing beyond them.
 */
@Injectable()
export class McpApps {
  private readonly logger = new Logger(McpApps.name);
  /** A directory's apps, derived once per directory version. */
  private readonly derived = new WeakMap<ToolDirectory, Apps>();
  /** UIs whose dropped CSP sources were logged: once each, not at every read of a busy UI. */
  private readonly warned = new Memo<string, true>(WARNED_LIMIT);

  constructor(
    private readonly lookup: AppToolLookup,
    private readonly renderer: PrefabRenderer,
  ) {}

  /** Declared beside tools: the UI extension, when a tool of the scope has a UI. */
  capabilities(directory: ToolDirectory): ServerCapabilities {
    if (this.apps(directory).resources.length === 0) return {};
    return { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_RESOURCE_MIME_TYPE] } } };
  }

  /**
   * A tools/call name that is no virtual name of the scope, read as `<tool_hash>_<original_name>`.
   * Null unless it names an app-visible tool under its own upstream name, whose gateway supplies
   * an app (a tool with a UI) among the tools the caller can see (`visible`): only an app calls by
   * these names. The record is the scope's own where the tool is a member (`scope`), so that
   * policies judge it as they do under any other name. With tool search on, a tool of the scope
   * is still refused until promoted (tool search sees to that), and one outside it only app-only.
   */
  async resolveCall(
    scope: ToolDirectory,
    visible: ToolDirectory,
    name: string,
  ): Promise<CallTarget | null> {
    const tool = await this.backendTool(name, scope);
    return tool &&
      this.apps(visible).gateways.has(tool.gatewayId) &&
      !unpromotable(scope, visible, tool)
      ? tool
      : null;
  }

  /**
   * Whether `name` is the hashed backend name of an app-visible tool of the gateway: all that an
   * app of that gateway may call where Portico itself is the host (the admin playground).
   */
  async ownBackendTool(gatewayId: string, name: string): Promise<boolean> {
    return (await this.backendTool(name))?.gatewayId === gatewayId;
  }

  /**
   * The app-visible tool a `<tool_hash>_<original_name>` names under its own upstream name: the
   * scope's own record where it is a member, else the served tool with that hash.
   */
  private async backendTool(
    name: string,
    scope?: ToolDirectory,
  ): Promise<(CallTarget & Pick<AppTool, 'toolHash' | 'visibility'>) | null> {
    const parsed = parseHashedBackendName(name);
    if (!parsed) return null;
    const tool = scope?.byHash.get(parsed.hash) ?? (await this.lookup.byHash(parsed.hash));
    return tool && answersToHashedName(tool, parsed) ? tool : null;
  }

  /** Whether a URI names a per-tool UI resource (which may still not exist). */
  owns(uri: string): boolean {
    return parsePrefabResourceUri(uri) !== null;
  }

  /** One entry per tool of the directory with a UI. */
  listResources(directory: ToolDirectory): readonly Resource[] {
    return this.apps(directory).resources;
  }

  /**
   * How a per-tool UI resource is read: Portico's page, built here, or the upstream's, with the
   * table of the backend tools its bridge addresses. Not found unless the caller may see the tool:
   * a member of the scope only where its policies list it to the caller (`visible`); an
   * app-visible tool of a gateway that supplies an app among those only where they list its own
   * record (`listed`). The table holds the app-visible tools of the gateway the caller may see by
   * the same rule, so a page learns no hash of a tool hidden from its caller.
   */
  async planRead(
    scope: ToolDirectory,
    visible: ToolDirectory,
    listed: (tool: PolicyTool) => boolean,
    uri: string,
  ): Promise<UiRead> {
    const hash = parsePrefabResourceUri(uri);
    const tool = hash === null ? null : await this.lookup.byHash(hash);
    const may = (candidate: AppTool) =>
      mayRead(scope, visible, this.apps(visible).gateways, listed, candidate);
    if (!tool || !may(tool)) throw resourceNotFound(uri);
    const ui = toolUi(tool.meta, tool.appConfig);
    if (!ui) throw resourceNotFound(uri);
    if (ui.kind === 'prefab') {
      const text = this.renderer.html({
        tool: tool.visibility.includes('app')
          ? hashedBackendName(tool.toolHash, tool.originalName)
          : null,
        title: tool.title ?? tool.originalName,
      });
      const meta = mergeUiResourceMeta([tool.appConfig]);
      const result = {
        contents: [{ uri, mimeType: UI_RESOURCE_MIME_TYPE, text, _meta: { ui: meta } }],
      };
      return { kind: 'built', result };
    }
    const callable = (await this.lookup.appCallable(tool.gatewayId)).filter(
      (backend) => may(backend) && !unpromotable(scope, visible, backend),
    );
    const hashes = new Map(callable.map((backend) => [backend.originalName, backend.toolHash]));
    return { kind: 'upstream', tool, upstreamUri: ui.uri, hashes };
  }

  /** The upstream's page with the call-rewriting bridge first, and its `_meta.ui` merged. */
  bridge(
    uri: string,
    { tool, upstreamUri, hashes }: Extract<UiRead, { kind: 'upstream' }>,
    { read, listed }: UpstreamUi,
  ): ReadResourceResult {
    const isHtml = (content: { mimeType?: string }) => content.mimeType?.startsWith('text/html');
    const item =
      read.contents.find((content) => content.uri === upstreamUri && isHtml(content)) ??
      read.contents.find(isHtml);
    if (!item) {
      throw new RpcError(
        UPSTREAM_PROTOCOL_ERROR,
        `The upstream sent no HTML for ${upstreamUri}, the UI of tool '${tool.originalName}'`,
      );
    }
    const html = 'text' in item ? item.text : Buffer.from(item.blob, 'base64').toString('utf8');
    const itemMeta = isJsonObject(item._meta) ? item._meta : {};
    const dropped: DroppedSources = { count: 0, samples: [] };
    const ui = mergeUiResourceMeta(
      [isJsonObject(listed?._meta) ? listed._meta.ui : undefined, itemMeta.ui, tool.appConfig],
      dropped,
    );
    if (dropped.count > 0) {
      const warning = `Gateway ${tool.gatewaySlug}'s UI ${JSON.stringify(upstreamUri.slice(0, 200))} declares ${dropped.count} CSP source(s) that are no single origin, not passed on: ${dropped.samples.join(', ')}`;
      if (!this.warned.has(warning)) {
        this.warned.remember(warning, true);
        this.logger.warn(warning);
      }
    }
    return {
      contents: [
        {
          uri,
          mimeType: UI_RESOURCE_MIME_TYPE,
          text: injectFirst(html, callRewriterScript(hashes)),
          _meta: { ...itemMeta, ui },
        },
      ],
    };
  }

  /**
   * The directory's apps: one UI resource per tool with a UI, and the gateways those tools come
   * from. A resource's `_meta.ui` is what is known without asking the upstream: the operator's app
   * config (all the Prefab renderer needs, as it loads nothing from elsewhere). A read adds what
   * the upstream's own resource declares.
   */
  private apps(directory: ToolDirectory): Apps {
    let apps = this.derived.get(directory);
    if (!apps) {
      const withUi = directory.tools.flatMap((tool) => {
        const ui = tool.definition._meta?.ui;
        const uri = isJsonObject(ui) ? ui.resourceUri : undefined;
        return typeof uri === 'string' && parsePrefabResourceUri(uri) === tool.toolHash
          ? [{ tool, uri }]
          : [];
      });
      apps = {
        resources: withUi.map(({ tool, uri }) => ({
          uri,
          name: tool.name,
          ...(tool.definition.title ? { title: tool.definition.title } : {}),
          description: `UI of the tool ${tool.name}`,
          mimeType: UI_RESOURCE_MIME_TYPE,
          _meta: { ui: mergeUiResourceMeta([tool.appConfig]) },
        })),
        gateways: new Set(withUi.map(({ tool }) => tool.gatewayId)),
      };
      this.derived.set(directory, apps);
    }
    return apps;
  }
}

/** A directory's UI resources, and the gateways whose apps they are. */
interface Apps {
  resources: readonly Resource[];
  gateways: ReadonlySet<string>;
}

function mayRead(
  scope: ToolDirectory,
  visible: ToolDirectory,
  appGateways: ReadonlySet<string>,
  listed: (tool: PolicyTool) => boolean,
  tool: AppTool,
): boolean {
  if (scope.byHash.has(tool.toolHash)) return visible.byHash.has(tool.toolHash);
  return tool.visibility.includes('app') && appGateways.has(tool.gatewayId) && listed(tool.policy);
}

/**
 * Whether search keeps a tool from its hashed name for good: with search on, a model-visible tool
 * is called only once promoted, and only the scope's own tools can be. An app-only tool is never
 * deferred, so an app still reaches its own upstream's app-only tools outside the scope.
 */
function unpromotable(
  scope: ToolDirectory,
  visible: ToolDirectory,
  tool: Pick<AppTool, 'toolHash' | 'visibility'>,
): boolean {
  return (
    visible.search.enabled && !scope.byHash.has(tool.toolHash) && tool.visibility.includes('model')
  );
}
