import { Injectable } from '@nestjs/common';
import { type Request } from 'express';
import { ServerSettings } from '../config/slices/server.settings';
import { type Principal } from './principal';
import { NO_SERVER, ServerTeams } from './server-teams';

/** An MCP endpoint: `/mcp` (every tool) or `/servers/:id/mcp` (one virtual server). */
export type McpTarget = { kind: 'all' } | { kind: 'server'; serverId: string };

/** Whether a principal may use an MCP endpoint, and if not, how to say so (RFC 6750). */
export type McpDecision =
  | { allowed: true }
  | { allowed: false; status: 401; error: 'invalid_token'; message: string }
  | { allowed: false; status: 403; error: 'insufficient_scope'; message: string }
  | { allowed: false; status: 404; error: 'not_found'; message: string };

/** What an MCP endpoint answers for a server the principal cannot see, whether or not it exists. */
export const NO_SUCH_SERVER = 'No such virtual server.';

/** Streamable HTTP (`mcp`) and the older HTTP+SSE transport's stream and message URLs. */
const MCP_PATH = /^\/(?:servers\/([^/]+)\/)?(?:mcp|sse|messages)\/?$/i;

/**
 * The MCP endpoint a request path names (the older transport's URLs name the same endpoint as
 * `mcp` beside them), or null for any other path.
 */
export function mcpTargetOf(path: string): McpTarget | null {
  const match = MCP_PATH.exec(path);
  if (!match) return null;
  return match[1] === undefined
    ? { kind: 'all' }
    : { kind: 'server', serverId: match[1].toLowerCase() };
}

export function targetKey(target: McpTarget): string {
  return target.kind === 'all' ? 'all' : `server:${target.serverId}`;
}

/**
 * Whether the AuthGuard authorized this request for this endpoint. The MCP transport asks, so that
 * an endpoint mounted without the guard, or at a path the guard read otherwise, refuses.
 */
export function mcpAuthorized(request: Request, target: McpTarget): boolean {
  return request.mcpAuthorized === targetKey(target);
}

/**
 * The one place that decides who may use which MCP endpoint:
 * - a token bound to a resource (RFC 8707 audience) only that endpoint;
 * - a token limited to servers only those servers' endpoints;
 * - `/mcp`, which serves every tool of every team, admins only;
 * - a virtual server's endpoint: admins, and members of its team (everyone, for a global one).
 * A server of another team is refused as one that does not exist (404; the endpoint answers both
 * with NO_SUCH_SERVER, and only an admin's tools show why), so that an endpoint's answer never
 * tells someone outside a team which of its servers exist. Costs no database round trip once the
 * server's team is cached.
 */
@Injectable()
export class McpAccess {
  constructor(
    private readonly config: ServerSettings,
    private readonly serverTeams: ServerTeams,
  ) {}

  async check(principal: Principal, target: McpTarget): Promise<McpDecision> {
    if (principal.audience !== null && principal.audience !== this.resourceUrl(target)) {
      return {
        allowed: false,
        status: 401,
        error: 'invalid_token',
        message: 'This token was issued for another MCP endpoint.',
      };
    }
    if (
      principal.serverIds !== null &&
      (target.kind === 'all' || !principal.serverIds.includes(target.serverId))
    ) {
      return forbidden('This token may not use this MCP endpoint.');
    }
    if (principal.role === 'admin') return { allowed: true };
    if (target.kind === 'all')
      return forbidden('/mcp serves the tools of every team; only admins may use it.');
    const team = await this.serverTeams.teamOf(target.serverId);
    if (team === NO_SERVER)
      return { allowed: false, status: 404, error: 'not_found', message: NO_SUCH_SERVER };
    if (team !== null && !principal.teamIds.includes(team))
      return {
        allowed: false,
        status: 404,
        error: 'not_found',
        message: 'This virtual server belongs to a team you are not in.',
      };
    return { allowed: true };
  }

  /** The endpoint's URL: its RFC 8707 resource identifier, and the audience of its tokens. */
  resourceUrl(target: McpTarget): string {
    return target.kind === 'all'
      ? `${this.config.publicUrl}/mcp`
      : `${this.config.publicUrl}/servers/${target.serverId}/mcp`;
  }

  /** Where its RFC 9728 protected resource metadata is. */
  metadataUrl(target: McpTarget): string {
    const resource = new URL(this.resourceUrl(target));
    return `${resource.origin}/.well-known/oauth-protected-resource${resource.pathname}`;
  }

  /** The WWW-Authenticate value of a refusal (MCP authorization spec, RFC 6750 and RFC 9728). */
  challenge(target: McpTarget, error?: { error: string; message: string }): string {
    const parts = [`resource_metadata="${this.metadataUrl(target)}"`];
    if (error) {
      parts.push(`error="${error.error}"`);
      // RFC 6750 allows only printable ASCII less quote and backslash in the description.
      parts.push(
        `error_description="${error.message.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '')}"`,
      );
    }
    return `Bearer ${parts.join(', ')}`;
  }
}

function forbidden(message: string): McpDecision {
  return { allowed: false, status: 403, error: 'insufficient_scope', message };
}
