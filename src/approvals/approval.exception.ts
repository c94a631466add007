import { DomainException } from '../common/domain.exception';

export enum ApprovalErrorCode {
  NotFound = 'approval.not_found',
}

export class ApprovalException extends DomainException<ApprovalErrorCode> {}
