import { Module } from '@nestjs/common';
import { ToolsModule } from '../tools/tools.module';
import { ConsolidatedToolsController } from './consolidated-tools.controller';
import { ConsolidatedToolsQuery } from './consolidated-tools.query';
import { ConsolidatedToolsService } from './consolidated-tools.service';

@Module({
  imports: [ToolsModule],
  controllers: [ConsolidatedToolsController],
  providers: [ConsolidatedToolsService, ConsolidatedToolsQuery],
  exports: [ConsolidatedToolsService, ConsolidatedToolsQuery],
})
export class ConsolidatedToolsModule {}
