import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum TeamErrorCode {
  NotFound = 'team.not_found',
  NameTaken = 'team.name_taken',
  /** It still owns gateways or servers: move or delete those first. */
  InUse = 'team.in_use',
  /** A gateway or server was given a team that does not exist. */
  Unknown = 'team.unknown',
}

export class TeamException extends DomainException<TeamErrorCode> {}

registerProblemStatuses(TeamException, {
  [TeamErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [TeamErrorCode.NameTaken]: HttpStatus.CONFLICT,
  [TeamErrorCode.InUse]: HttpStatus.CONFLICT,
  [TeamErrorCode.Unknown]: HttpStatus.UNPROCESSABLE_ENTITY,
});
