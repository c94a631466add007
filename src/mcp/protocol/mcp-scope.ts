/** What an MCP endpoint serves: every enabled tool (`/mcp`) or one virtual server. */
export type McpScope = { kind: 'all' } | { kind: 'server'; serverId: string };

export function scopeKey(scope: McpScope): string {
  return scope.kind === 'all' ? 'all' : `server:${scope.serverId}`;
}

export function scopeOf(serverId: string | null): McpScope {
  return serverId === null ? { kind: 'all' } : { kind: 'server', serverId };
}
