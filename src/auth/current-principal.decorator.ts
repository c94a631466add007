import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type Request } from 'express';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type Principal } from './principal';

/** The principal the auth guard established for this request. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<Request>().principal;
    if (!principal)
      throw new AuthException(AuthErrorCode.Unauthenticated, 'A bearer token is required.');
    return principal;
  },
);
