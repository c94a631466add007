import { Module } from '@nestjs/common';
import { ServerHooksController } from './server-hooks.controller';
import { ServerHooksService } from './server-hooks.service';
import { ToolRulesController } from './tool-rules.controller';
import { ToolRulesService } from './tool-rules.service';

@Module({
  controllers: [ToolRulesController, ServerHooksController],
  providers: [ToolRulesService, ServerHooksService],
  exports: [ToolRulesService, ServerHooksService],
})
export class PoliciesModule {}
