import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum SkillErrorCode {
  NotFound = 'skill.not_found',
  ServerNotFound = 'skill.server_not_found',
  UnknownMembers = 'skill.unknown_members',
}

export class SkillException extends DomainException<SkillErrorCode> {}

registerProblemStatuses(SkillException, {
  [SkillErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [SkillErrorCode.ServerNotFound]: HttpStatus.NOT_FOUND,
  [SkillErrorCode.UnknownMembers]: HttpStatus.UNPROCESSABLE_ENTITY,
});
