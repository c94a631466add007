import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type PolicyTool } from '../../policies/policy-tool';
import { type ClientEras } from '../../servers/server.entity';
import { type ToolOverrideValues } from '../../servers/tool-override';
import { type ToolAppConfig } from '../../tools/tool-app-config';
import { type ToolVisibility } from '../../tools/tool-visibility';

/** One tool as an MCP endpoint resolves and lists it. */
export interface DirectoryTool {
  id: string;
  /** The listed name: virtual, or the upstream's under original naming. */
  name: string;
  gatewayId: string;
  gatewaySlug: string;
  originalName: string;
  toolHash: string;
  visibility: ToolVisibility[];
  /** The `tools/list` entry. */
  definition: McpTool;
  /** The operator's MCP Apps settings; absent means none. */
  appConfig?: ToolAppConfig | null;
  /**
   * The stored content hash of the upstream definition: with the name and app config it stands
   * for the listed definition in the fingerprint, far cheaper than hashing every definition.
   */
  contentHash?: string;
  /** The server's override of how it shows this tool, when it has one. */
  override?: ToolOverrideValues | null;
  /** What policies judge: the same record on every route to this tool. */
  policy: PolicyTool;
  /** A consolidated tool's targets: a call goes to the chosen one's member tool. */
  consolidated?: ConsolidatedRoute;
}

/** Settings of the virtual server behind a scope; null for the gateway-wide endpoint. */
export interface DirectoryServer {
  id: string;
  name: string;
  /** The clients it takes, by era. */
  clientEras: ClientEras;
  toolSearchEnabled: boolean;
  toolSearchAlwaysLoaded: string[];
}

/** One target of a consolidated tool, as the scope names and judges its member tool. */
export interface ConsolidatedTarget {
  target: string;
  tool: DirectoryTool;
}

/** What a consolidated tool's entry carries besides its listing: where each target goes. */
export interface ConsolidatedRoute {
  /** The shared input schema, without `target`. */
  inputSchema: Record<string, unknown>;
  /** By label. */
  targets: readonly ConsolidatedTarget[];
}
