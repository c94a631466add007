import { Global, Module } from '@nestjs/common';
import { AuditStats } from './audit-stats';
import { AuditTrail } from './audit-trail.service';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** The audit trail: written by every feature through AuditTrail, read through the API and pages. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [AuditTrail, AuditService, AuditStats],
  exports: [AuditTrail, AuditService, AuditStats],
})
export class AuditModule {}
