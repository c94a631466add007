/** Operator-set MCP Apps settings of one tool, merged into its UI resource. */
export interface ToolAppConfig {
  prefab?: boolean;
  csp?: {
    connectDomains?: string[];
    resourceDomains?: string[];
    frameDomains?: string[];
    baseUriDomains?: string[];
  };
  permissions?: Record<string, Record<string, never>>;
  prefersBorder?: boolean;
}
