import { Module } from '@nestjs/common';
import { UpstreamModule } from '../upstream/upstream.module';
import { ToolInvoker } from './tool.invoker';
import { ToolPresenter } from './tool.presenter';
import { ToolWriter } from './tool.writer';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

@Module({
  imports: [UpstreamModule],
  controllers: [ToolsController],
  providers: [ToolsService, ToolPresenter, ToolWriter, ToolInvoker],
  exports: [ToolsService, ToolPresenter, ToolWriter, ToolInvoker],
})
export class ToolsModule {}
