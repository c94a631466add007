import { Module } from '@nestjs/common';
import { PromptsModule } from '../prompts/prompts.module';
import { ResourcesModule } from '../resources/resources.module';
import { ToolsModule } from '../tools/tools.module';
import {
  PromptPinsController,
  QuarantineController,
  ResourceTemplatePinsController,
  ToolPinsController,
} from './pins.controller';
import { DefinitionScans } from './definition-scans';
import { PinRescans } from './pin-rescans.service';
import { PinsService } from './pins.service';
import { QuarantineQuery } from './quarantine.query';

/**
 * What operators do with pinned definitions: the quarantine queue, approvals, rejections, and
 * judging definitions again (rescans); and the scanner as syncs use it.
 */
@Module({
  imports: [ToolsModule, PromptsModule, ResourcesModule],
  controllers: [
    ToolPinsController,
    PromptPinsController,
    ResourceTemplatePinsController,
    QuarantineController,
  ],
  providers: [PinsService, QuarantineQuery, DefinitionScans, PinRescans],
  exports: [PinsService, QuarantineQuery, DefinitionScans, PinRescans],
})
export class PinningModule {}
