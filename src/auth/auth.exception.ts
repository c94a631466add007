import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum AuthErrorCode {
  InvalidCredentials = 'auth.invalid_credentials',
  TooManyAttempts = 'auth.too_many_attempts',
  Unauthenticated = 'auth.unauthenticated',
  Forbidden = 'auth.forbidden',
}

export class AuthException extends DomainException<AuthErrorCode> {}

registerProblemStatuses(AuthException, {
  [AuthErrorCode.InvalidCredentials]: HttpStatus.UNAUTHORIZED,
  [AuthErrorCode.TooManyAttempts]: HttpStatus.TOO_MANY_REQUESTS,
  [AuthErrorCode.Unauthenticated]: HttpStatus.UNAUTHORIZED,
  [AuthErrorCode.Forbidden]: HttpStatus.FORBIDDEN,
});
