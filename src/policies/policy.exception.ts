import { DomainException } from '../common/domain.exception';

export enum PolicyErrorCode {
  RuleNotFound = 'policy.rule_not_found',
  /** The rule names a tool, server or team that does not exist. */
  UnknownTarget = 'policy.unknown_target',
  /** A server's hooks name an unknown hook or settings it cannot run with. */
  InvalidHooks = 'policy.invalid_hooks',
}

export class PolicyException extends DomainException<PolicyErrorCode> {}
