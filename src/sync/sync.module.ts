import { Module } from '@nestjs/common';
import { ToolsModule } from '../tools/tools.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { CatalogueReader } from './catalogue.reader';
import { GatewayWatchers } from './gateway-watchers';
import { SyncApplier } from './sync.applier';
import { SyncLeadership } from './sync-leadership';
import { SyncScheduler } from './sync.scheduler';
import { SyncService } from './sync.service';

@Module({
  imports: [ToolsModule, UpstreamModule],
  providers: [
    CatalogueReader,
    SyncService,
    SyncApplier,
    SyncLeadership,
    SyncScheduler,
    GatewayWatchers,
  ],
  exports: [SyncService],
})
export class SyncModule {}
