import { Module } from '@nestjs/common';
import { ToolPresenter } from './tool.presenter';
import { ToolWriter } from './tool.writer';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

@Module({
  controllers: [ToolsController],
  providers: [ToolsService, ToolPresenter, ToolWriter],
  exports: [ToolsService, ToolPresenter, ToolWriter],
})
export class ToolsModule {}
