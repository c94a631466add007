/** Deferred tool search of one MCP endpoint. */
export interface ToolSearchSettings {
  enabled: boolean;
  /** Virtual names that stay listed when search defers the rest. */
  alwaysLoaded: readonly string[];
}

/** The MCP endpoints: virtual names, sessions, pages and the tool search of /mcp. Injected by the modules that need it. */
export abstract class McpSettings {
  abstract readonly toolNameSeparator: string;
  abstract readonly mcpSessionTtlSeconds: number;
  /** Sessions one principal holds at once on all replicas; opening one more ends its oldest. */
  abstract readonly mcpMaxSessionsPerPrincipal: number;
  abstract readonly mcpPageSize: number;
  /** Tool search of the gateway-wide `/mcp`; virtual servers have their own setting. */
  abstract readonly mcpToolSearch: ToolSearchSettings;
}
