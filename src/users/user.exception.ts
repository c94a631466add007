import { DomainException } from '../common/domain.exception';

export enum UserErrorCode {
  NotFound = 'user.not_found',
  UsernameTaken = 'user.username_taken',
  /** The ADMIN_USERNAME account: its role, state and password come from the configuration. */
  BreakGlass = 'user.break_glass',
  /** A password for an account that signs in through the identity provider. */
  NotLocal = 'user.not_local',
  UnknownTeams = 'user.unknown_teams',
}

export class UserException extends DomainException<UserErrorCode> {}
