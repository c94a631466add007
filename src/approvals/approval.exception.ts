import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum ApprovalErrorCode {
  NotFound = 'approval.not_found',
}

export class ApprovalException extends DomainException<ApprovalErrorCode> {}

registerProblemStatuses(ApprovalException, {
  [ApprovalErrorCode.NotFound]: HttpStatus.NOT_FOUND,
});
