import { DomainException } from '../common/domain.exception';

export enum AuditErrorCode {
  BadCursor = 'AUDIT_BAD_CURSOR',
}

export class AuditException extends DomainException<AuditErrorCode> {}
