import { type Role } from '../common/roles';

/** How the request proved who it acts for. */
export const PRINCIPAL_SOURCES = [
  'session',
  'login-token',
  'api-token',
  'oauth',
  'external',
  'legacy-token',
] as const;
export type PrincipalSource = (typeof PRINCIPAL_SOURCES)[number];

/** Who a request acts for, and what it may reach; built once per request by the AuthGuard. */
export interface Principal {
  /** A stable id of who acts: MCP sessions belong to it. */
  subject: string;
  /** For people to read: a username, or a token's name. */
  name: string;
  /** The local user behind it, if any (an external token's person may have none). */
  userId: string | null;
  role: Role;
  teamIds: readonly string[];
  /** Set when it may use only the MCP endpoints of these servers, and nothing else. */
  serverIds: readonly string[] | null;
  /** Set for an OAuth access token bound (RFC 8707) to this MCP endpoint URL, and nothing else. */
  audience: string | null;
  /** The API token or OAuth grant it came from, if any. */
  tokenId: string | null;
  source: PrincipalSource;
  /**
   * When its credential expires (epoch ms); absent when none is known. A request is checked when
   * it arrives, so a stream it holds open ends then (see endAtExpiry).
   */
  expiresAt?: number;
}

/** A principal that may use MCP endpoints only (some of them), never the REST API or pages. */
export function mcpOnly(principal: Principal): boolean {
  return principal.serverIds !== null || principal.audience !== null;
}

declare module 'express' {
  interface Request {
    principal?: Principal;
  }
}
