import { Module } from '@nestjs/common';
import { UpstreamModule } from '../upstream/upstream.module';
import { PoliciesModule } from '../policies/policies.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { ServedToolsQuery } from './served-tools.query';
import { ToolInvoker } from './tool.invoker';
import { ToolPresenter } from './tool.presenter';
import { ToolWriter } from './tool.writer';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

@Module({
  imports: [UpstreamModule, PoliciesModule, RateLimitsModule],
  controllers: [ToolsController],
  providers: [ToolsService, ToolPresenter, ToolWriter, ToolInvoker, ServedToolsQuery],
  exports: [ToolsService, ToolPresenter, ToolWriter, ToolInvoker, ServedToolsQuery],
})
export class ToolsModule {}
