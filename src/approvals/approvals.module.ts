import { Module } from '@nestjs/common';
import { ApprovalsController } from './approvals.controller';
import { RememberedApprovals } from './remembered-approvals';
import { SpentApprovals } from './spent-approvals';

@Module({
  controllers: [ApprovalsController],
  providers: [RememberedApprovals, SpentApprovals],
  exports: [RememberedApprovals, SpentApprovals],
})
export class ApprovalsModule {}
