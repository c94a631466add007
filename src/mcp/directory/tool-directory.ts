import { createHash } from 'node:crypto';
import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type Principal } from '../../auth/principal';
import { type ToolSearchSettings } from '../../config/slices/mcp.settings';
import { type PolicySet } from '../../policies/policy-set';
import { parseHashedBackendName } from '../../tools/tool-hash';
import { headerParamsOf, type HeaderParams } from '../../upstream/modern/mcp-param-headers';
import { type McpScope } from '../protocol/mcp-scope';
import { narrowedEntry } from './consolidated-entry';
import { type DirectoryServer, type DirectoryTool } from './directory-tool';

/**
 * The immutable set of tools one scope serves, built from the database after every filter
 * (enabled tool, enabled gateway, server membership). Replaced, never changed, when the catalogue
 * changes, so a reader always sees one consistent version.
 */
export class ToolDirectory {
  /**
   * Listed name to tool. A virtual name always wins over an app-only tool's hashed name that
   * happens to spell it, as tools/call tries virtual names first; the shadowed tool stays
   * reachable through `byHash` and its UI resource.
   */
  readonly byName: ReadonlyMap<string, DirectoryTool>;
  readonly byHash: ReadonlyMap<string, DirectoryTool>;
  /** Names of `byName` shaped like an app's hashed backend name (see CallGuard's `reachedTool`). */
  readonly hashShaped: ReadonlySet<string>;
  /** What `tools/list` returns, in order. */
  readonly definitions: readonly McpTool[];
  /** The gateways whose tools these are (a consolidated tool's members' too): slugs by id. */
  readonly gateways: ReadonlyMap<string, string>;
  /** Changes whenever what `tools/list` would return changes. */
  readonly fingerprint: string;
  /**
   * Each listed tool's `x-mcp-header` declarations, scanned on first use (`headerParams`); a name
   * scanned before is a map lookup.
   */
  readonly headers = new Map<string, HeaderParams>();
  /** Deferred tool search in this scope: its server's settings, or `/mcp`'s from the config. */
  readonly search: ToolSearchSettings;

  constructor(
    readonly scope: McpScope,
    readonly server: DirectoryServer | null,
    /** Ordered by virtual name. */
    readonly tools: readonly DirectoryTool[],
    options: {
      /** More that decides what the list shows (the scope's policies). */
      stamp?: string;
      /** Taken as it is: a view of another directory keeps that one's version. */
      fingerprint?: string;
      /** Tool search where there is no server (`/mcp`): off unless given. */
      search?: ToolSearchSettings;
    } = {},
  ) {
    this.search = server
      ? { enabled: server.toolSearchEnabled, alwaysLoaded: server.toolSearchAlwaysLoaded }
      : (options.search ?? { enabled: false, alwaysLoaded: [] });
    const byName = new Map<string, DirectoryTool>();
    for (const tool of tools) if (listedByVirtualName(tool)) byName.set(tool.name, tool);
    for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
    this.byName = byName;
    this.hashShaped = new Set([...byName.keys()].filter((name) => parseHashedBackendName(name)));
    this.byHash = new Map(tools.map((tool) => [tool.toolHash, tool]));
    this.definitions = tools
      .filter((tool) => byName.get(tool.name) === tool)
      .map((tool) => tool.definition);
    this.gateways = new Map(
      tools.flatMap((tool) =>
        (tool.consolidated ? tool.consolidated.targets.map((target) => target.tool) : [tool]).map(
          (member): [string, string] => [member.gatewayId, member.gatewaySlug],
        ),
      ),
    );
    if (options.fingerprint !== undefined) {
      this.fingerprint = options.fingerprint;
      return;
    }
    const hash = createHash('sha256');
    for (const tool of tools) {
      if (byName.get(tool.name) !== tool) continue;
      hash.update(
        tool.contentHash === undefined
          ? JSON.stringify(tool.definition)
          : `${tool.name}\0${tool.contentHash}\0${JSON.stringify(tool.appConfig ?? null)}\0${JSON.stringify(tool.override ?? null)}`,
      );
      hash.update('\n');
    }
    hash.update(JSON.stringify(server));
    hash.update(options.stamp ?? '');
    this.fingerprint = hash.digest('hex');
  }

  /**
   * The `Mcp-Param-*` declarations of a listed tool (none for a name it does not list). A tool whose
   * annotation is invalid is not served to 2026-07-28 clients, which would drop it anyway.
   */
  headerParams(name: string): HeaderParams {
    let scanned = this.headers.get(name);
    if (!scanned) {
      const tool = this.byName.get(name);
      scanned = tool ? headerParamsOf(tool.definition.inputSchema) : { valid: true, params: [] };
      this.headers.set(name, scanned);
    }
    return scanned;
  }

  /**
   * What the principal may see: the tools the policies list for it (a tool is hidden only when
   * every call of it is denied), under the same version. `tools/list`, calls and the policy dry
   * run all take their view from here. A consolidated tool keeps the targets whose member tools
   * the principal would see, and is hidden with none.
   */
  visibleTo(policy: PolicySet, principal: Principal, key = policy.keyOf(principal)): ToolDirectory {
    if (policy.empty) return this;
    const kept = this.tools.flatMap((tool) => {
      if (!tool.consolidated) return policy.listed(principal, tool.policy, key) ? [tool] : [];
      const narrowed = narrowedEntry(tool, ({ tool: member }) =>
        policy.listed(principal, member.policy, key),
      );
      return narrowed ? [narrowed] : [];
    });
    return new ToolDirectory(this.scope, this.server, kept, {
      fingerprint: this.fingerprint,
      search: this.search,
    });
  }
}

/** Tools the model may see are listed by virtual name; app-only ones by hashed backend name. */
function listedByVirtualName(tool: DirectoryTool): boolean {
  return tool.visibility.includes('model');
}
