import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Request } from 'express';
import { ADMIN_SESSION_ROUTE, PUBLIC_ROUTE, SERVER_TOKENS_ALLOWED } from './auth.decorators';
import { AuthErrorCode, AuthException } from './auth.exception';
import { TokenService } from './token.service';

/**
 * Global: every route needs an admin bearer token unless it is marked otherwise. Admin pages are
 * left to their session guard.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_SESSION_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const principal = this.tokens.verify(bearerToken(request));
    request.principal = principal;
    if (
      principal.scope !== 'admin' &&
      !this.reflector.getAllAndOverride<boolean>(SERVER_TOKENS_ALLOWED, targets)
    ) {
      throw new AuthException(
        AuthErrorCode.Forbidden,
        'This token may only be used on MCP endpoints of its servers.',
      );
    }
    return true;
  }
}

export function bearerToken(request: Request): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new AuthException(AuthErrorCode.Unauthenticated, 'A bearer token is required.');
  return match[1]!;
}
