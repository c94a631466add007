import { Injectable } from '@nestjs/common';
import { type LoginAttempt, type LoginRecorder } from '../auth/login-recorder';
import { AuditTrail } from './audit-trail.service';

/** A password sign-in attempt as an entry of the audit trail. */
@Injectable()
export class LoginAudit implements LoginRecorder {
  constructor(private readonly trail: AuditTrail) {}

  record(attempt: LoginAttempt): void {
    this.trail.record({ kind: 'login', action: 'login', ...attempt });
  }
}
