import { Injectable, Logger } from '@nestjs/common';
import {
  type CallToolRequest,
  type CallToolResult,
  ProtocolErrorCode,
  type JSONRPCNotification,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import { type ToolSearchSettings } from '../../config/slices/mcp.settings';
import { LocalEmbeddings } from '../../embeddings/local-embeddings.service';
import { ProviderEmbeddings } from '../../embeddings/provider-embeddings.service';
import { answersToHashedName, parseHashedBackendName } from '../../tools/tool-hash';
import { type ToolDirectory } from '../directory/tool-directory';
import { RpcError } from '../protocol/mcp-errors';
import { type RequestOwner } from '../protocol/mcp-request';
import { PromotionStore } from './promotion-store';
import { promotedNames } from './promotions';
import { ToolAnalysisCache } from './tool-analysis';
import { parseToolQuery } from './tool-query';
import { deferredTools, type SearchOptions, ToolCatalogue } from './tool-catalogue';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';
import {
  deferredToolRefusal,
  toolSearchArguments,
  toolSearchDefinition,
  toolSearchResult,
} from './tool-search.tool';

/**
 * The virtual name of the deferred tool a tools/call name reaches, or null if it reaches none.
 * Resolution is that of tools/call: a name shaped like the hashed backend name of an app-visible
 * tool reaches that tool even where a virtual name spells it, so the hashed path is no way around
 * deferral.
 */
function deferredName(
  directory: ToolDirectory,
  catalogue: ToolCatalogue,
  called: string,
): string | null {
  const parsed = parseHashedBackendName(called);
  const tool = parsed && directory.byHash.get(parsed.hash);
  const reached = tool && answersToHashedName(tool, parsed) ? tool.name : called;
  return catalogue.has(reached) ? reached : null;
}

/** A scope's catalogue with the `tool_search` entry that describes it. */
export interface SearchableScope {
  catalogue: ToolCatalogue;
  searchTool: McpTool;
  /**
   * Settles once the embeddings provider's tool vectors joined the ranking, or could not; at
   * once without a provider. Searches do not wait for it.
   */
  providerVectors: Promise<void>;
}

const LIST_CHANGED: JSONRPCNotification = {
  jsonrpc: '2.0',
  method: 'notifications/tools/list_changed',
};

/**
 * Deferred tool search, for both eras. What a client sees follows from two values only: the
 * scope's immutable ToolDirectory (and the catalogue derived from it) and the promotions its owner
 * stored (a 2025 session, or the principal in its scope). The catalogue is memoised per directory instance, so it is rebuilt exactly when the
 * directory is replaced and dropped with it; the analysis of each unchanged tool is reused.
 */
@Injectable()
export class ToolSearchService {
  private readonly logger = new Logger(ToolSearchService.name);
  private readonly built = new WeakMap<ToolDirectory, Promise<SearchableScope>>();
  /** Catalogues of every model-visible tool, for the admin page's search. */
  private readonly unfiltered = new WeakMap<ToolDirectory, Promise<SearchableScope>>();
  private analyses?: Promise<ToolAnalysisCache>;

  constructor(
    private readonly store: PromotionStore,
    private readonly localEmbeddings: LocalEmbeddings,
    private readonly providerEmbeddings: ProviderEmbeddings,
  ) {}

  settings(directory: ToolDirectory): ToolSearchSettings {
    return directory.search;
  }

  /**
   * The scope's catalogue; null when search is off. Fails closed: when search is on and the
   * catalogue cannot be built, this throws rather than let anyone serve every schema.
   */
  async searchable(directory: ToolDirectory): Promise<SearchableScope | null> {
    const settings = this.settings(directory);
    if (!settings.enabled) return null;
    let scope = this.built.get(directory);
    if (!scope) {
      scope = this.buildScope(directory, settings);
      this.built.set(directory, scope);
      scope.catch(() => this.built.get(directory) === scope && this.built.delete(directory));
    }
    return scope;
  }

  /**
   * Ranks `query` over every tool of `directory` the model may see, whether or not search is on
   * for it: the admin tools page offers the same search to try it out. Nothing is promoted.
   */
  async rank(
    directory: ToolDirectory,
    query: string,
    limit: number,
    options: Pick<SearchOptions, 'gateway'> = {},
  ): Promise<McpTool[]> {
    let building = this.unfiltered.get(directory);
    if (!building) {
      building = this.buildScope(directory, { enabled: true, alwaysLoaded: [] });
      this.unfiltered.set(directory, building);
      building.catch(() => this.unfiltered.delete(directory));
    }
    const scope = await building;
    return scope.catalogue.search(query, limit, {
      ...options,
      providerVector: await this.providerVector(scope.catalogue, query),
    });
  }

  /**
   * `tools/list` of a request: null when search is off (then every tool is listed). `owner` holds
   * the promotions; without one nothing is promoted.
   */
  async listed(directory: ToolDirectory, owner: RequestOwner | null): Promise<McpTool[] | null> {
    const scope = await this.searchable(directory);
    if (!scope) return null;
    const { catalogue, searchTool } = scope;
    const promoted =
      owner === null
        ? new Set<string>()
        : promotedNames(await this.store.promotions(owner, true), catalogue.hash);
    const listed = [searchTool];
    for (const definition of directory.definitions) {
      if (definition.name === TOOL_SEARCH_NAME) continue;
      if (!catalogue.has(definition.name) || promoted.has(definition.name)) listed.push(definition);
    }
    return listed;
  }

  /**
   * Answers a tools/call that search decides: a `tool_search` call, or a refusal for a deferred
   * tool its owner has not promoted. Null when the call goes ahead as usual. Without an owner a
   * search promotes nothing and every deferred tool is refused: fail closed, never a way around
   * deferral.
   */
  async intercept(
    directory: ToolDirectory,
    owner: RequestOwner | null,
    params: CallToolRequest['params'],
    call: {
      notify: (notification: JSONRPCNotification) => void;
      /** Counts the call against the scope's limits; throws past them. */
      counted: () => Promise<void>;
    },
  ): Promise<CallToolResult | null> {
    const scope = await this.searchable(directory);
    if (!scope) return null;
    if (params.name === TOOL_SEARCH_NAME) return this.search(scope, owner, params, call.notify);
    const name = deferredName(directory, scope.catalogue, params.name);
    if (name === null) return null;
    if (owner === null) return deferredToolRefusal(name);
    // Promotions only grow under one catalogue hash, so this replica's copy can only be behind:
    // trust it when it says yes, and ask the database before saying no. That read counts as a call
    // (a promoted tool's call that needed it is counted twice), or refusals would cost the
    // database without limit.
    const hash = scope.catalogue.hash;
    if (promotedNames(await this.store.promotions(owner), hash).has(name)) return null;
    await call.counted();
    if (promotedNames(await this.store.promotions(owner, true), hash).has(name)) return null;
    return deferredToolRefusal(name);
  }

  /** Overridden in tests to prove that a catalogue that cannot be built fails closed. */
  protected async buildCatalogue(
    directory: ToolDirectory,
    settings: ToolSearchSettings,
  ): Promise<ToolCatalogue> {
    return ToolCatalogue.build(deferredTools(directory.tools, settings.alwaysLoaded), {
      analyses: await this.analysisCache(),
      wordVectors: await this.localEmbeddings.load(),
    });
  }

  private async buildScope(
    directory: ToolDirectory,
    settings: ToolSearchSettings,
  ): Promise<SearchableScope> {
    let catalogue: ToolCatalogue;
    try {
      catalogue = await this.buildCatalogue(directory, settings);
    } catch (error) {
      this.logger.error(
        `Tool search catalogue of ${directory.server ? `server ${directory.server.id}` : '/mcp'} could not be built: ${String(error)}`,
      );
      throw new RpcError(
        ProtocolErrorCode.InternalError,
        'Tool search is enabled but its catalogue could not be built; not listing deferred tools',
      );
    }
    return {
      catalogue,
      searchTool: toolSearchDefinition(catalogue),
      providerVectors: this.attachProviderVectors(catalogue),
    };
  }

  private analysisCache(): Promise<ToolAnalysisCache> {
    this.analyses ??= this.localEmbeddings.load().then((vectors) => new ToolAnalysisCache(vectors));
    return this.analyses;
  }

  /** Embeds the catalogue's tools with the provider, in the background of the first searches. */
  private async attachProviderVectors(catalogue: ToolCatalogue): Promise<void> {
    if (!this.providerEmbeddings.enabled || catalogue.size === 0) return;
    try {
      const vectors = await this.providerEmbeddings.embedTools(
        catalogue.analyses.map((analysis) => ({
          hash: analysis.providerHash,
          text: analysis.providerText,
        })),
      );
      await catalogue.attachProviderVectors(vectors);
    } catch (error) {
      this.logger.warn(
        `Tool vectors from the embeddings provider are unavailable; ranking without them: ${String(error)}`,
      );
    }
  }

  /** The query's provider vector, when the query ranks and the catalogue has provider vectors. */
  private async providerVector(
    catalogue: ToolCatalogue,
    query: string,
  ): Promise<Float32Array | null> {
    if (!this.providerEmbeddings.enabled) return null;
    const parsed = parseToolQuery(query);
    const text =
      parsed.kind === 'text' ? parsed.text : parsed.kind === 'require' ? parsed.rest : '';
    if (text.trim() === '') return null;
    if (!catalogue.usesProviderVectors)
      return this.providerEmbeddings.fallBack('tool_vectors_missing');
    return this.providerEmbeddings.embedQuery(text);
  }

  private async search(
    { catalogue }: SearchableScope,
    owner: RequestOwner | null,
    params: CallToolRequest['params'],
    notify: (notification: JSONRPCNotification) => void,
  ): Promise<CallToolResult> {
    const { query, limit, gateway } = toolSearchArguments(params.arguments);
    const matches = catalogue.search(query, limit, {
      gateway,
      providerVector: await this.providerVector(catalogue, query),
    });
    if (matches.length > 0 && owner !== null) {
      const names = matches.map((tool) => tool.name);
      const promoted = await this.store.promote(owner, catalogue.hash, names);
      // On the search's own response stream, ahead of its result: it reaches the client whichever
      // replica serves the search and whether or not the client keeps a GET stream open.
      if (promoted?.changed) notify(LIST_CHANGED);
    }
    return toolSearchResult(catalogue, { query, gateway }, matches);
  }
}
