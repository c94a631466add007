import { Injectable } from '@nestjs/common';
import {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/server';
import { McpSettings } from '../../config/slices/mcp.settings';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { McpApps, resourceNotFound } from '../apps/mcp-apps.service';
import { invalidParams } from '../protocol/mcp-errors';
import { type McpRequest, type Served } from '../protocol/mcp-request';
import { ReadableResources } from '../listen/readable-resources';
import { SkillDirectories } from '../skills/skill-directories.service';
import { CallGuard } from '../guard/call-guard';
import { Continuation, type RoundTarget } from './continuation';
import { paginate } from '../protocol/paginate';
import { isInputRequired, UpstreamClient } from '../../upstream/upstream-client';
import { resultItems } from '../../upstream/upstream-lists';
import { type ResourceTarget } from '../directory/resource-directory';
import { type ScopeDirectory } from '../directory/scope-directory';

/** Pages of an upstream's resource list searched for the entry of an app's page. */
const UI_ENTRY_PAGES = 10;

export function uriOf(params: unknown, method: string): string {
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== 'string') throw invalidParams(`${method} needs a uri`);
  return uri;
}

/**
 * resources/list, templates and read. A read goes to the upstream that owns the URI, under the
 * URI it knows; what comes back names the client's URIs. (Subscriptions are the 2025 session's:
 * see SessionRequests.)
 */
@Injectable()
export class ResourceCalls {
  constructor(
    private readonly config: McpSettings,
    private readonly apps: McpApps,
    private readonly continuation: Continuation,
    private readonly client: UpstreamClient,
    private readonly skills: SkillDirectories,
    private readonly guard: CallGuard,
    private readonly readable: ReadableResources,
  ) {}

  /**
   * The scope's resources (a skill's files only where the skill is served: see `target`), then
   * the per-tool UI resources of MCP Apps of the tools the principal may see.
   */
  async list(
    request: McpRequest,
    directory: ScopeDirectory,
    cursor?: string,
  ): Promise<ListResourcesResult> {
    const withheld = await this.skills.withheld(directory, request.principal);
    const all = [
      ...directory.resources.resources.flatMap((resource) =>
        withheld(resource, resource.uri) ? [] : [resource.definition],
      ),
      ...this.apps.listResources(this.guard.visible(directory, request.principal)),
    ];
    const page = paginate(all, cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    return { resources: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  templates(directory: ScopeDirectory, cursor?: string): ListResourceTemplatesResult {
    const page = paginate(directory.resources.templateDefinitions, cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    return {
      resourceTemplates: page.items,
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  }

  async read(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<ReadResourceResult> {
    const uri = uriOf(request.params, 'resources/read');
    if (this.apps.owns(uri)) return this.readUi(request, directory, uri, served);
    const target = await this.target(request, directory, uri);
    served.gateway = target.gatewaySlug;
    const { _meta } = request.params as Record<string, unknown>;
    const round: RoundTarget = {
      gatewayId: target.gatewayId,
      method: 'resources/read',
      target: target.upstreamUri,
    };
    const continued = request.resume ? this.continuation.open(request, round) : null;
    const read = (await this.client.request(
      target.gatewayId,
      request.affinity,
      'resources/read',
      {
        uri: target.upstreamUri,
        ...(_meta === undefined ? {} : { _meta }),
        ...continued?.upstream,
      },
      request,
    )) as ReadResourceResult;
    // A round asks for input; there are no contents yet to name.
    if (isInputRequired(read))
      return (continued ?? this.continuation.open(request, round)).answer(read);
    const contents = resultItems<ReadResourceResult['contents'][number]>(
      read,
      'resources/read',
      'contents',
      'uri',
    );
    return {
      ...read,
      contents: contents.map((content) => ({
        ...content,
        uri:
          content.uri === target.upstreamUri
            ? uri
            : directory.resources.clientUri(target.gatewaySlug, content.uri),
      })),
    };
  }

  /**
   * The upstream and its URI behind a client's URI, to read or to follow; an error when none or
   * several own it. An upstream may list a skill's files as resources too (the SDK's extension
   * does): one is reached here only where the scope serves its skill to the principal.
   */
  async target(
    request: Pick<McpRequest, 'principal'>,
    directory: ScopeDirectory,
    uri: string,
  ): Promise<ResourceTarget> {
    const target = await this.readable.resolve(directory, request.principal, uri);
    if (target === 'ambiguous')
      throw invalidParams(`More than one upstream's template matches ${uri}`);
    if (!target) throw resourceNotFound(uri);
    if (target === 'withheld') throw invalidParams(`No skill is served at ${uri}`);
    return target;
  }

  private async readUi(
    request: McpRequest,
    directory: ScopeDirectory,
    uri: string,
    served: Served,
  ): Promise<ReadResourceResult> {
    const { policy } = directory.guard;
    const plan = await this.apps.planRead(
      directory.tools,
      this.guard.visible(directory, request.principal),
      (tool) => policy.listed(request.principal, tool),
      uri,
    );
    if (plan.kind === 'built') return plan.result;
    const { tool, upstreamUri } = plan;
    served.gateway = tool.gatewaySlug;
    const ui = await this.client.call(tool.gatewayId, request.affinity, async (connection) => {
      const [read, listed] = await Promise.all([
        connection.request<ReadResourceResult>('resources/read', { uri: upstreamUri }),
        // The list entry only adds to the CSP; an upstream that cannot list still serves its page.
        findListed(connection, upstreamUri).catch(() => null),
      ]);
      return { read, listed };
    });
    return this.apps.bridge(uri, plan, ui);
  }
}

/** The upstream's `resources/list` entry for a URI, looked for in its first pages. */
async function findListed(connection: UpstreamConnection, uri: string): Promise<Resource | null> {
  if (!connection.serverCapabilities.resources) return null;
  let cursor: string | undefined;
  for (let page = 0; page < UI_ENTRY_PAGES; page++) {
    const listed = await connection.request<ListResourcesResult>(
      'resources/list',
      cursor === undefined ? {} : { cursor },
    );
    const found = listed.resources.find((resource) => resource.uri === uri);
    if (found) return found;
    if (!listed.nextCursor) return null;
    cursor = listed.nextCursor;
  }
  return null;
}
