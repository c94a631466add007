import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum PolicyErrorCode {
  NotFound = 'policy.not_found',
  NameTaken = 'policy.name_taken',
  /** The expression does not parse, type-check or give a bool; `position` says where. */
  InvalidExpression = 'policy.invalid_expression',
  /** Approval settings on a policy whose effect is not `approve`. */
  InvalidApproval = 'policy.invalid_approval',
  /** The policy or the dry run names a server or user that does not exist. */
  UnknownTarget = 'policy.unknown_target',
  /** A server's hooks name an unknown hook or settings it cannot run with. */
  InvalidHooks = 'policy.invalid_hooks',
}

export class PolicyException extends DomainException<PolicyErrorCode> {}

registerProblemStatuses(PolicyException, {
  [PolicyErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [PolicyErrorCode.NameTaken]: HttpStatus.CONFLICT,
  [PolicyErrorCode.InvalidExpression]: HttpStatus.BAD_REQUEST,
  [PolicyErrorCode.InvalidApproval]: HttpStatus.UNPROCESSABLE_ENTITY,
  [PolicyErrorCode.UnknownTarget]: HttpStatus.UNPROCESSABLE_ENTITY,
  [PolicyErrorCode.InvalidHooks]: HttpStatus.UNPROCESSABLE_ENTITY,
});
