import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type Request } from 'express';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type Principal } from './principal';
import { TeamScope } from './team-scope';

function principalOf(context: ExecutionContext): Principal {
  const principal = context.switchToHttp().getRequest<Request>().principal;
  // Only a route the AuthGuard let through has one; a public route asking for it is a bug.
  if (!principal) throw new AuthException(AuthErrorCode.Unauthenticated, 'Not signed in.');
  return principal;
}

/** Who the request acts for, as the AuthGuard found. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  principalOf(context),
);

/** What team-owned records the request's principal sees and manages. */
export const CurrentScope = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  TeamScope.of(principalOf(context)),
);
