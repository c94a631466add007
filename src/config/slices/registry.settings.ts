/**
 * The MCP Registries Portico browses and imports from (v0.1 read API), and how much one may cost:
 * only these are ever fetched, whatever a caller asks.
 */
export interface McpRegistryConfig {
  /** Registry base URLs (`<url>/v0.1/servers`), in the operator's order; empty: import is off. */
  registries: readonly string[];
  /** The most bytes of one registry answer. */
  maxBytes: number;
  /** Entries asked for per page. */
  pageSize: number;
  /** Pages followed in one search. */
  maxPages: number;
  /** For one registry request, from connecting to the last byte. */
  timeoutMs: number;
}

/** The MCP Registries Portico may read. Injected by the modules that need it. */
export abstract class RegistrySettings {
  abstract readonly mcpRegistry: McpRegistryConfig;
}
