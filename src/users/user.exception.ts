import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

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

registerProblemStatuses(UserException, {
  [UserErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [UserErrorCode.UsernameTaken]: HttpStatus.CONFLICT,
  [UserErrorCode.BreakGlass]: HttpStatus.CONFLICT,
  [UserErrorCode.NotLocal]: HttpStatus.CONFLICT,
  [UserErrorCode.UnknownTeams]: HttpStatus.UNPROCESSABLE_ENTITY,
});
