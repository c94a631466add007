import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum RateLimitErrorCode {
  NotFound = 'rate_limit.not_found',
  /** A call beyond a limit; details carry `retryAfterSeconds`. */
  Exceeded = 'rate_limit.exceeded',
  /** The counters could not be reached: calls are refused rather than let through uncounted. */
  Unavailable = 'rate_limit.unavailable',
  UnknownTarget = 'rate_limit.unknown_target',
}

export class RateLimitException extends DomainException<RateLimitErrorCode> {}

registerProblemStatuses(RateLimitException, {
  [RateLimitErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [RateLimitErrorCode.Exceeded]: HttpStatus.TOO_MANY_REQUESTS,
  [RateLimitErrorCode.Unavailable]: HttpStatus.SERVICE_UNAVAILABLE,
  [RateLimitErrorCode.UnknownTarget]: HttpStatus.UNPROCESSABLE_ENTITY,
});
