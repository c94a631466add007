import { createHash } from 'node:crypto';
import { type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type ToolVisibility } from '../../tools/tool-visibility';
import { type McpScope } from '../mcp-scope';

/** One tool as an MCP endpoint resolves and lists it. */
export interface DirectoryTool {
  id: string;
  /** The virtual name. */
  name: string;
  gatewayId: string;
  gatewaySlug: string;
  originalName: string;
  toolHash: string;
  visibility: ToolVisibility[];
  /** The `tools/list` entry. */
  definition: McpTool;
}

/** Settings of the virtual server behind a scope; null for the gateway-wide endpoint. */
export interface DirectoryServer {
  id: string;
  name: string;
  toolSearchEnabled: boolean;
  toolSearchAlwaysLoaded: string[];
}

/**
 * The immutable set of tools one scope serves, built from the database after every filter
 * (enabled tool, enabled gateway, server membership). Replaced, never changed, when the catalogue
 * changes, so a reader always sees one consistent version.
 */
export class ToolDirectory {
  readonly byName: ReadonlyMap<string, DirectoryTool>;
  /** What `tools/list` returns, in order. */
  readonly definitions: readonly McpTool[];
  readonly gatewayIds: ReadonlySet<string>;
  /** Changes whenever what `tools/list` would return changes. */
  readonly fingerprint: string;

  constructor(
    readonly scope: McpScope,
    readonly server: DirectoryServer | null,
    /** Ordered by virtual name. */
    readonly tools: readonly DirectoryTool[],
  ) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
    this.definitions = tools.map((tool) => tool.definition);
    this.gatewayIds = new Set(tools.map((tool) => tool.gatewayId));
    const hash = createHash('sha256');
    for (const tool of tools) hash.update(JSON.stringify(tool.definition)).update('\n');
    hash.update(JSON.stringify(server));
    this.fingerprint = hash.digest('hex');
  }
}
