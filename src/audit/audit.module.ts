import { Global, Module } from '@nestjs/common';
import { LoginRecorder } from '../auth/login-recorder';
import { AuditStats } from './audit-stats';
import { AuditTrail } from './audit-trail.service';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';
import { LoginAudit } from './login-audit';

/** The audit trail: written by every feature through AuditTrail, read through the API and pages. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [
    AuditTrail,
    AuditService,
    AuditStats,
    { provide: LoginRecorder, useClass: LoginAudit },
  ],
  exports: [AuditTrail, AuditService, AuditStats, LoginRecorder],
})
export class AuditModule {}
