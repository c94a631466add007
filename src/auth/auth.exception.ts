import { DomainException } from '../common/domain.exception';

export enum AuthErrorCode {
  InvalidCredentials = 'auth.invalid_credentials',
  TooManyAttempts = 'auth.too_many_attempts',
  Unauthenticated = 'auth.unauthenticated',
  Forbidden = 'auth.forbidden',
}

export class AuthException extends DomainException<AuthErrorCode> {}
