import { Module } from '@nestjs/common';
import { ConsolidatedToolsModule } from '../consolidated-tools/consolidated-tools.module';
import { PinningModule } from '../pinning/pinning.module';
import { PromptsModule } from '../prompts/prompts.module';
import { ResourcesModule } from '../resources/resources.module';
import { SkillsModule } from '../skills/skills.module';
import { ToolsModule } from '../tools/tools.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { CatalogueReader } from './catalogue.reader';
import { GatewayWatchers } from './gateway-watchers';
import { MemberListsApplier } from './member-lists.applier';
import { OAuthRefreshScheduler } from './oauth-refresh.scheduler';
import { SyncApplier } from './sync.applier';
import { SyncLeadership } from './sync-leadership';
import { SyncScheduler } from './sync.scheduler';
import { SyncService } from './sync.service';

@Module({
  imports: [
    ToolsModule,
    ResourcesModule,
    PromptsModule,
    UpstreamModule,
    PinningModule,
    SkillsModule,
    ConsolidatedToolsModule,
  ],
  providers: [
    CatalogueReader,
    SyncService,
    SyncApplier,
    MemberListsApplier,
    SyncLeadership,
    SyncScheduler,
    GatewayWatchers,
    OAuthRefreshScheduler,
  ],
  exports: [SyncService],
})
export class SyncModule {}
