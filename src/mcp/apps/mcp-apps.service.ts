import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type ListResourcesResult,
  type ReadResourceResult,
  type Resource,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
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
import { paginate } from '../directory/paginate';
import { type ToolDirectory } from '../directory/tool-directory';
import { ToolDirectoryService } from '../directory/tool-directory.service';
import { RpcError, UPSTREAM_UNAVAILABLE } from '../mcp-errors';
import { type McpScope } from '../mcp-scope';
import { type ProxySession } from '../upstream/proxy-session';
import { type AppTool, AppToolLookup } from './app-tool-lookup.service';
import { callRewriterScript, injectFirst } from './call-rewriter';
import { PrefabRenderer } from './prefab/prefab-renderer.service';
import { mergeUiResourceMeta } from './ui-resource-meta';

/** JSON-RPC error of MCP for an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002;

/** What the apps code needs of the session it serves. */
export interface AppSession {
  directory(): Promise<ToolDirectory>;
  /** Runs `work` on the session's own upstream session of that gateway. */
  withUpstream<T>(gatewayId: string, work: (upstream: ProxySession) => Promise<T>): Promise<T>;
}

/** Where a tools/call goes: the tool's gateway, under its upstream name. */
export interface CallTarget {
  gatewayId: string;
  originalName: string;
}

function resourceNotFound(uri: string): RpcError {
  return new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * MCP Apps through the gateway: hashed backend names on tools/call, and the per-tool UI resources
 * `ui://prefab/tool/<tool_hash>/renderer.html`, listed from the directory and built on each read.
 *
 * Who may use what: a session may read the UI of a tool of its scope; and, through its apps, call
 * and read any app-visible tool of a gateway that supplies one of its tools. An app may reach its
 * own upstream's backend tools, and nothing beyond them.
 */
@Injectable()
export class McpApps {
  /** The UI resources a directory lists, derived once per directory version. */
  private readonly derived = new WeakMap<ToolDirectory, readonly Resource[]>();

  constructor(
    private readonly config: AppConfig,
    private readonly directories: ToolDirectoryService,
    private readonly lookup: AppToolLookup,
    private readonly renderer: PrefabRenderer,
  ) {}

  /** Declared beside tools: the UI extension, when a tool of the scope has a UI. */
  async capabilities(scope: McpScope): Promise<ServerCapabilities> {
    const directory = await this.directories.get(scope);
    if (!directory || this.resources(directory).length === 0) return {};
    return { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_RESOURCE_MIME_TYPE] } } };
  }

  /**
   * A tools/call name that is no virtual name of the scope, read as `<tool_hash>_<original_name>`.
   * Null unless it names an app-visible tool under its own upstream name, whose gateway supplies
   * one of the scope's tools.
   */
  async resolveCall(directory: ToolDirectory, name: string): Promise<CallTarget | null> {
    const parsed = parseHashedBackendName(name);
    if (!parsed) return null;
    const tool = directory.byHash.get(parsed.hash) ?? (await this.lookup.byHash(parsed.hash));
    if (!tool || !answersToHashedName(tool, parsed) || !directory.gatewayIds.has(tool.gatewayId))
      return null;
    return tool;
  }

  listResources(directory: ToolDirectory, cursor: string | undefined): ListResourcesResult {
    const page = paginate(this.resources(directory), cursor, this.config.mcpPageSize);
    if (!page) throw new RpcError(ErrorCode.InvalidParams, 'Invalid cursor');
    return {
      resources: page.items,
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }

  async readResource(session: AppSession, uri: string): Promise<ReadResourceResult> {
    const hash = parsePrefabResourceUri(uri);
    const tool = hash === null ? null : await this.lookup.byHash(hash);
    if (!tool || !this.mayRead(await session.directory(), tool)) throw resourceNotFound(uri);
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
      return { contents: [{ uri, mimeType: UI_RESOURCE_MIME_TYPE, text, _meta: { ui: meta } }] };
    }
    return this.readUpstreamUi(session, uri, tool, ui.uri);
  }

  private mayRead(directory: ToolDirectory, tool: AppTool): boolean {
    return (
      directory.byHash.has(tool.toolHash) ||
      (tool.visibility.includes('app') && directory.gatewayIds.has(tool.gatewayId))
    );
  }

  /** The upstream's page with the call-rewriting bridge first, and its `_meta.ui` merged. */
  private async readUpstreamUi(
    session: AppSession,
    uri: string,
    tool: AppTool,
    upstreamUri: string,
  ): Promise<ReadResourceResult> {
    const [[read, listed], hashes] = await Promise.all([
      session.withUpstream(tool.gatewayId, (upstream) =>
        Promise.all([
          upstream.readResource(upstreamUri),
          // The list entry only adds to the CSP; an upstream that cannot list still serves its page.
          upstream.findResource(upstreamUri).catch(() => null),
        ]),
      ),
      this.lookup.appCallableHashes(tool.gatewayId),
    ]);
    const isHtml = (content: { mimeType?: string }) => content.mimeType?.startsWith('text/html');
    const item =
      read.contents.find((content) => content.uri === upstreamUri && isHtml(content)) ??
      read.contents.find(isHtml);
    if (!item) {
      throw new RpcError(
        UPSTREAM_UNAVAILABLE,
        `The upstream sent no HTML for ${upstreamUri}, the UI of tool '${tool.originalName}'`,
      );
    }
    const html = 'text' in item ? item.text : Buffer.from(item.blob, 'base64').toString('utf8');
    const itemMeta = isObject(item._meta) ? item._meta : {};
    const ui = mergeUiResourceMeta([
      isObject(listed?._meta) ? listed._meta.ui : undefined,
      itemMeta.ui,
      tool.appConfig,
    ]);
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
   * One entry per tool with a UI. Its `_meta.ui` is what is known without asking the upstream: the
   * operator's app config (all the Prefab renderer needs, as it loads nothing from elsewhere).
   * A read adds what the upstream's own resource declares.
   */
  private resources(directory: ToolDirectory): readonly Resource[] {
    let resources = this.derived.get(directory);
    if (!resources) {
      resources = directory.tools.flatMap((tool) => {
        const ui = tool.definition._meta?.ui;
        const uri = isObject(ui) ? ui.resourceUri : undefined;
        if (typeof uri !== 'string' || parsePrefabResourceUri(uri) !== tool.toolHash) return [];
        return [
          {
            uri,
            name: tool.name,
            ...(tool.definition.title ? { title: tool.definition.title } : {}),
            description: `UI of the tool ${tool.name}`,
            mimeType: UI_RESOURCE_MIME_TYPE,
            _meta: { ui: mergeUiResourceMeta([tool.appConfig]) },
          },
        ];
      });
      this.derived.set(directory, resources);
    }
    return resources;
  }
}
