import { Module } from '@nestjs/common';
import { ApprovalsController } from './approvals.controller';
import { RememberedApprovals } from './remembered-approvals';
import { ToolApprovals } from './tool-approvals';

@Module({
  controllers: [ApprovalsController],
  providers: [RememberedApprovals, ToolApprovals],
  exports: [ToolApprovals],
})
export class ApprovalsModule {}
