import { Module } from '@nestjs/common';
import { ApprovalsController } from './approvals.controller';
import { RememberedApprovals } from './remembered-approvals';

@Module({
  controllers: [ApprovalsController],
  providers: [RememberedApprovals],
  exports: [RememberedApprovals],
})
export class ApprovalsModule {}
