import { Injectable } from '@nestjs/common';
import {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { McpApps, resourceNotFound } from '../apps/mcp-apps.service';
import { invalidParams } from '../mcp-errors';
import { type SessionRuntime } from '../session/session-runtime';
import { paginate } from './paginate';
import { onSessionUpstream } from './session-upstream';
import { type ToolDirectory } from './tool-directory';

/** Pages of an upstream's resource list searched for the entry of an app's page. */
const UI_ENTRY_PAGES = 10;

/** resources/list, resources/templates/list and resources/read. */
@Injectable()
export class ResourceCalls {
  constructor(
    private readonly config: AppConfig,
    private readonly apps: McpApps,
  ) {}

  list(runtime: SessionRuntime, directory: ToolDirectory, cursor?: string): ListResourcesResult {
    const page = paginate(this.apps.listResources(directory), cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    return { resources: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  templates(): ListResourceTemplatesResult {
    return { resourceTemplates: [] };
  }

  async read(
    runtime: SessionRuntime,
    directory: ToolDirectory,
    params: unknown,
  ): Promise<ReadResourceResult> {
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string') throw invalidParams('resources/read needs a uri');
    if (!this.apps.owns(uri)) throw resourceNotFound(uri);
    const plan = await this.apps.planRead(directory, uri);
    if (plan.kind === 'built') return plan.result;
    const { tool, upstreamUri } = plan;
    const ui = await onSessionUpstream(
      runtime,
      tool,
      this.config.upstreamTimeoutMs,
      async (connection) => {
        const [read, listed] = await Promise.all([
          connection.request<ReadResourceResult>('resources/read', { uri: upstreamUri }),
          // The list entry only adds to the CSP; an upstream that cannot list still serves its page.
          findListed(connection, upstreamUri).catch(() => null),
        ]);
        return { read, listed };
      },
    );
    return this.apps.bridge(uri, tool, upstreamUri, ui);
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
