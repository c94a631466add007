import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Request } from 'express';
import { PUBLIC_ROUTE } from '../auth/auth.decorators';
import { AdminErrorCode, AdminException } from './admin.exception';
import { AdminSessionService } from '../auth/admin-session.service';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Every admin form post needs the CSRF token bound to the session, or, for the login form, to the
 * browser's login nonce. Whether a page may be seen at all is the global AuthGuard's decision,
 * which has already read the session of every non-public admin route.
 */
@Injectable()
export class AdminSessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: AdminSessionService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    const session = request.adminSession ?? this.sessions.read(request);
    if (session) request.adminSession = session;
    if (!session && !isPublic) {
      throw new AdminException(AdminErrorCode.SessionRequired, 'Log in to continue.');
    }
    if (!SAFE_METHODS.has(request.method)) {
      const seed = session && !isPublic ? session.sid : this.sessions.existingLoginNonce(request);
      const token = (request.body as Record<string, unknown> | undefined)?._csrf;
      if (seed === null || !this.sessions.csrfValid(seed, token)) {
        throw new AdminException(
          AdminErrorCode.CsrfRejected,
          'This form has expired or did not come from Portico. Go back, reload the page and try again.',
        );
      }
    }
    return true;
  }
}
