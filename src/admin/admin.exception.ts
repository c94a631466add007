import { DomainException } from '../common/domain.exception';

export enum AdminErrorCode {
  /** No valid session: GET requests are sent to the login page, anything else is refused. */
  SessionRequired = 'admin.session_required',
  /** A form post without the CSRF token of this session: refused with 403. */
  CsrfRejected = 'admin.csrf_rejected',
}

export class AdminException extends DomainException<AdminErrorCode> {}
