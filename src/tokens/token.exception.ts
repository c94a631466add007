import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum TokenErrorCode {
  NotFound = 'token.not_found',
  /** Neither a role nor servers, or both. */
  ScopeRequired = 'token.scope_required',
  /** A role above the creator's own, or servers the creator may not use. */
  BeyondOwner = 'token.beyond_owner',
  /** The owner holds as many active tokens as one user may (settings.auth.maxApiTokensPerUser). */
  LimitReached = 'token.limit_reached',
}

export class TokenException extends DomainException<TokenErrorCode> {}

registerProblemStatuses(TokenException, {
  [TokenErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [TokenErrorCode.ScopeRequired]: HttpStatus.UNPROCESSABLE_ENTITY,
  [TokenErrorCode.BeyondOwner]: HttpStatus.UNPROCESSABLE_ENTITY,
  [TokenErrorCode.LimitReached]: HttpStatus.CONFLICT,
});
