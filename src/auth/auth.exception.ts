import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum AuthErrorCode {
  InvalidCredentials = 'auth.invalid_credentials',
  TooManyAttempts = 'auth.too_many_attempts',
  Unauthenticated = 'auth.unauthenticated',
  Forbidden = 'auth.forbidden',
  /** An MCP endpoint of no server the principal may see: told apart from none by no one. */
  NoSuchEndpoint = 'auth.no_such_endpoint',
}

export class AuthException extends DomainException<AuthErrorCode> {}

registerProblemStatuses(AuthException, {
  [AuthErrorCode.InvalidCredentials]: HttpStatus.UNAUTHORIZED,
  [AuthErrorCode.TooManyAttempts]: HttpStatus.TOO_MANY_REQUESTS,
  [AuthErrorCode.Unauthenticated]: HttpStatus.UNAUTHORIZED,
  [AuthErrorCode.Forbidden]: HttpStatus.FORBIDDEN,
  [AuthErrorCode.NoSuchEndpoint]: HttpStatus.NOT_FOUND,
});
