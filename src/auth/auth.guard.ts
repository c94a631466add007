import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Request, type Response } from 'express';
import { routeAccess, type RouteAccess } from './auth.decorators';
import { AuthErrorCode, AuthException } from './auth.exception';
import { mcpTargetOf, targetKey } from './mcp-access';
import { McpAuthorizer } from './mcp-authorizer';
import { mcpOnly, type Principal } from './principal';
import { bearerToken, CallerTokens, PrincipalResolver } from './principal-resolver';
import { roleAtLeast } from '../common/roles';

declare module 'express' {
  interface Request {
    /** Set by the AuthGuard once it allowed an MCP request: the endpoint it checked (targetKey). */
    mcpAuthorized?: string;
  }
}

/**
 * Global, and the one place where authorization is decided, from each route's metadata:
 * - `@Public()`: anyone;
 * - `@McpRoute()`: a bearer token, and McpAccess on the endpoint the path names;
 * - admin pages: the session cookie, and the route's least role;
 * - anything else (the REST API): a bearer token that is not limited to MCP endpoints, and the
 *   route's least role (admin unless the route says otherwise).
 * What a permitted principal may then see (its teams' records) is the services' TeamScope.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** Each route handler's access, read from its metadata once (no controller extends another). */
  private readonly access = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly resolver: PrincipalResolver,
    private readonly mcp: McpAuthorizer,
    private readonly callerTokens: CallerTokens,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    let access = this.access.get(context.getHandler());
    if (!access) {
      access = routeAccess(this.reflector, context);
      this.access.set(context.getHandler(), access);
    }
    const request = context.switchToHttp().getRequest<Request>();
    switch (access.kind) {
      case 'public':
        return true;
      case 'mcp':
        await this.authorizeMcp(request, context.switchToHttp().getResponse<Response>());
        return true;
      case 'admin-page': {
        const principal = await this.resolver.fromSession(request);
        if (!principal)
          throw new AuthException(AuthErrorCode.Unauthenticated, 'Log in to continue.');
        request.principal = principal;
        this.requireRole(principal, access.minRole);
        return true;
      }
      case 'api': {
        const token = bearerToken(request);
        const principal = await this.resolver.fromBearer(token);
        request.principal = principal;
        if (mcpOnly(principal)) {
          throw new AuthException(
            AuthErrorCode.Forbidden,
            'This token may only be used on MCP endpoints.',
          );
        }
        this.requireRole(principal, access.minRole);
        this.callerTokens.remember(principal, token);
        return true;
      }
    }
  }

  private async authorizeMcp(request: Request, response: Response): Promise<void> {
    const target = mcpTargetOf(request.path) ?? { kind: 'all' };
    request.principal = await this.mcp.authorize(request, target, response);
    request.mcpAuthorized = targetKey(target);
  }

  private requireRole(principal: Principal, minRole: Principal['role']): void {
    if (!roleAtLeast(principal.role, minRole)) {
      throw new AuthException(
        AuthErrorCode.Forbidden,
        `This needs the ${minRole} role; ${principal.name} has ${principal.role}.`,
      );
    }
  }
}
