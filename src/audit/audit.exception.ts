import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum AuditErrorCode {
  BadCursor = 'AUDIT_BAD_CURSOR',
}

export class AuditException extends DomainException<AuditErrorCode> {}

registerProblemStatuses(AuditException, {
  [AuditErrorCode.BadCursor]: HttpStatus.BAD_REQUEST,
});
