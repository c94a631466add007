import { type ExecutionContext, SetMetadata } from '@nestjs/common';
import { type Reflector } from '@nestjs/core';
import { type Role } from '../common/roles';

export const PUBLIC_ROUTE = 'portico:public';
export const MCP_ROUTE = 'portico:mcp';
export const ADMIN_SESSION_ROUTE = 'portico:admin-session';
export const MIN_ROLE = 'portico:min-role';

/** Reachable without a bearer token or session. The allowlist is exactly the routes marked with this. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * An MCP endpoint: open to tokens limited to servers or bound to one resource; McpAccess decides
 * whether the principal may use the endpoint the path names.
 */
export const McpRoute = () => SetMetadata(MCP_ROUTE, true);

/**
 * Authenticated by the admin pages' session cookie instead of a bearer token. Only for use with
 * the admin session guard, which `AdminController` applies together with this.
 */
export const AdminSessionRoute = () => SetMetadata(ADMIN_SESSION_ROUTE, true);

/**
 * The least role a route needs. A route without it needs `admin`: a new route is closed until
 * someone opens it on purpose.
 */
export const MinRole = (role: Role) => SetMetadata(MIN_ROLE, role);

/** What a route asks of the request, from its metadata (handler first, then controller). */
export type RouteAccess =
  { kind: 'public' } | { kind: 'mcp' } | { kind: 'api' | 'admin-page'; minRole: Role };

export function routeAccess(reflector: Reflector, context: ExecutionContext): RouteAccess {
  const targets = [context.getHandler(), context.getClass()];
  if (reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return { kind: 'public' };
  if (reflector.getAllAndOverride<boolean>(MCP_ROUTE, targets)) return { kind: 'mcp' };
  const minRole = reflector.getAllAndOverride<Role | undefined>(MIN_ROLE, targets) ?? 'admin';
  const adminPage = reflector.getAllAndOverride<boolean>(ADMIN_SESSION_ROUTE, targets);
  return { kind: adminPage ? 'admin-page' : 'api', minRole };
}
