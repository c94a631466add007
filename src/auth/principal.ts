/** Who a request acts for, from its verified bearer token. */
export type Principal =
  | { subject: string; scope: 'admin' }
  /** May only use the MCP endpoints of these virtual servers. */
  | { subject: string; scope: 'server'; serverIds: string[] };

export function mayUseServer(principal: Principal, serverId: string): boolean {
  return principal.scope === 'admin' || principal.serverIds.includes(serverId);
}

declare module 'express' {
  interface Request {
    principal?: Principal;
  }
}
