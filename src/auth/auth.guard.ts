import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Request, type Response } from 'express';
import { routeAccess, type RouteAccess } from './auth.decorators';
import { AuthErrorCode, AuthException } from './auth.exception';
import { McpAccess, mcpTargetOf, targetKey } from './mcp-access';
import { mcpOnly, type Principal } from './principal';
import { PrincipalResolver } from './principal-resolver';
import { roleAtLeast } from './roles';

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
    private readonly mcp: McpAccess,
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
        const principal = await this.resolver.fromBearer(bearerToken(request));
        request.principal = principal;
        if (mcpOnly(principal)) {
          throw new AuthException(
            AuthErrorCode.Forbidden,
            'This token may only be used on MCP endpoints.',
          );
        }
        this.requireRole(principal, access.minRole);
        return true;
      }
    }
  }

  private async authorizeMcp(request: Request, response: Response): Promise<void> {
    const target = mcpTargetOf(request.path) ?? { kind: 'all' };
    let principal: Principal;
    try {
      principal = await this.resolver.fromBearer(bearerToken(request));
    } catch (error) {
      if (error instanceof AuthException && error.code === AuthErrorCode.Unauthenticated) {
        const presented = Boolean(request.headers.authorization);
        response.setHeader(
          'WWW-Authenticate',
          this.mcp.challenge(
            target,
            presented ? { error: 'invalid_token', message: error.message } : undefined,
          ),
        );
      }
      throw error;
    }
    request.principal = principal;
    const decision = await this.mcp.check(principal, target);
    if (!decision.allowed) {
      response.setHeader('WWW-Authenticate', this.mcp.challenge(target, decision));
      throw new AuthException(
        decision.status === 401 ? AuthErrorCode.Unauthenticated : AuthErrorCode.Forbidden,
        decision.message,
      );
    }
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

export function bearerToken(request: Request): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new AuthException(AuthErrorCode.Unauthenticated, 'A bearer token is required.');
  return match[1]!;
}
