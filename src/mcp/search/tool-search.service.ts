import { Injectable, Logger } from '@nestjs/common';
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  type JSONRPCNotification,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { AppConfig, type ToolSearchSettings } from '../../config/app-config';
import { answersToHashedName, parseHashedBackendName } from '../../tools/tool-hash';
import { type ToolDirectory } from '../calls/tool-directory';
import { RpcError } from '../mcp-errors';
import { SessionStore } from '../session/session.store';
import { promotedNames } from './promotions';
import { buildToolCatalogue, TOOL_SEARCH_NAME, type ToolCatalogue } from './tool-catalogue';
import {
  deferredToolRefusal,
  toolSearchArguments,
  toolSearchDefinition,
  toolSearchResult,
} from './tool-search.tool';

/**
 * The virtual name of the deferred tool a tools/call name reaches, or null if it reaches none.
 * Resolution is that of tools/call: the virtual name first, then a hashed backend name of an
 * app-visible tool, so the hashed path is no way around deferral.
 */
function deferredName(
  directory: ToolDirectory,
  catalogue: ToolCatalogue,
  called: string,
): string | null {
  if (catalogue.has(called)) return called;
  if (directory.byName.has(called)) return null;
  const parsed = parseHashedBackendName(called);
  const tool = parsed && directory.byHash.get(parsed.hash);
  return tool && answersToHashedName(tool, parsed) && catalogue.has(tool.name) ? tool.name : null;
}

/** A scope's catalogue with the `tool_search` entry that describes it. */
export interface SearchableScope {
  catalogue: ToolCatalogue;
  searchTool: McpTool;
}

const LIST_CHANGED: JSONRPCNotification = {
  jsonrpc: '2.0',
  method: 'notifications/tools/list_changed',
};

/**
 * Deferred tool search for MCP sessions. What a session sees follows from two values only: the
 * scope's immutable ToolDirectory (and the catalogue derived from it) and the session's stored
 * promotions. The catalogue is memoised per directory instance, so it is rebuilt exactly when the
 * directory is replaced and dropped with it.
 */
@Injectable()
export class ToolSearchService {
  private readonly logger = new Logger(ToolSearchService.name);
  private readonly built = new WeakMap<ToolDirectory, SearchableScope>();

  constructor(
    private readonly config: AppConfig,
    private readonly store: SessionStore,
  ) {}

  settings(directory: ToolDirectory): ToolSearchSettings {
    const server = directory.server;
    if (!server) return this.config.mcpToolSearch;
    return { enabled: server.toolSearchEnabled, alwaysLoaded: server.toolSearchAlwaysLoaded };
  }

  /**
   * The scope's catalogue; null when search is off. Fails closed: when search is on and the
   * catalogue cannot be built, this throws rather than let anyone serve every schema.
   */
  searchable(directory: ToolDirectory): SearchableScope | null {
    const settings = this.settings(directory);
    if (!settings.enabled) return null;
    let scope = this.built.get(directory);
    if (!scope) {
      try {
        const catalogue = this.buildCatalogue(directory, settings);
        scope = { catalogue, searchTool: toolSearchDefinition(catalogue) };
      } catch (error) {
        this.logger.error(
          `Tool search catalogue of ${directory.server ? `server ${directory.server.id}` : '/mcp'} could not be built: ${String(error)}`,
        );
        throw new RpcError(
          ErrorCode.InternalError,
          'Tool search is enabled but its catalogue could not be built; not listing deferred tools',
        );
      }
      this.built.set(directory, scope);
    }
    return scope;
  }

  /** `tools/list` of a session: null when search is off (then every tool is listed). */
  async listed(directory: ToolDirectory, sessionId: string): Promise<McpTool[] | null> {
    const scope = this.searchable(directory);
    if (!scope) return null;
    const { catalogue, searchTool } = scope;
    const promoted = promotedNames(await this.store.promotions(sessionId, true), catalogue.hash);
    const listed = [searchTool];
    for (const definition of directory.definitions) {
      if (definition.name === TOOL_SEARCH_NAME) continue;
      if (!catalogue.has(definition.name) || promoted.has(definition.name)) listed.push(definition);
    }
    return listed;
  }

  /**
   * Answers a tools/call that search decides: a `tool_search` call, or a refusal for a deferred
   * tool this session has not promoted. Null when the call goes ahead as usual.
   */
  async intercept(
    directory: ToolDirectory,
    sessionId: string,
    params: CallToolRequest['params'],
    notify: (notification: JSONRPCNotification) => void,
  ): Promise<CallToolResult | null> {
    const scope = this.searchable(directory);
    if (!scope) return null;
    if (params.name === TOOL_SEARCH_NAME) return this.search(scope, sessionId, params, notify);
    const name = deferredName(directory, scope.catalogue, params.name);
    if (name === null) return null;
    // Promotions only grow under one catalogue hash, so this replica's copy can only be behind:
    // trust it when it says yes, and ask the database before saying no.
    const hash = scope.catalogue.hash;
    if (promotedNames(await this.store.promotions(sessionId), hash).has(name)) return null;
    if (promotedNames(await this.store.promotions(sessionId, true), hash).has(name)) return null;
    return deferredToolRefusal(name);
  }

  /** Overridden in tests to prove that a catalogue that cannot be built fails closed. */
  protected buildCatalogue(directory: ToolDirectory, settings: ToolSearchSettings): ToolCatalogue {
    return buildToolCatalogue(directory.tools, settings.alwaysLoaded);
  }

  private async search(
    { catalogue }: SearchableScope,
    sessionId: string,
    params: CallToolRequest['params'],
    notify: (notification: JSONRPCNotification) => void,
  ): Promise<CallToolResult> {
    const { query, limit } = toolSearchArguments(params.arguments);
    const matches = catalogue.search(query, limit);
    if (matches.length > 0) {
      const promoted = await this.store.promote(
        sessionId,
        catalogue.hash,
        matches.map((tool) => tool.name),
      );
      // On the search's own response stream, ahead of its result: it reaches the client whichever
      // replica serves the search and whether or not the client keeps a GET stream open.
      if (promoted?.changed) notify(LIST_CHANGED);
    }
    return toolSearchResult(query, matches);
  }
}
