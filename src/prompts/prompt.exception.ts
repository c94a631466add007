import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum PromptErrorCode {
  NotFound = 'prompt.not_found',
}

export class PromptException extends DomainException<PromptErrorCode> {}

registerProblemStatuses(PromptException, {
  [PromptErrorCode.NotFound]: HttpStatus.NOT_FOUND,
});
