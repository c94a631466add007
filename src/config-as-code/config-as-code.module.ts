import { Module } from '@nestjs/common';
import { PinningModule } from '../pinning/pinning.module';
import { ServersModule } from '../servers/servers.module';
import { SyncModule } from '../sync/sync.module';
import { ToolsModule } from '../tools/tools.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { ConfigFileStartup } from './config-file.startup';
import { ConfigController } from './config.controller';
import { ConfigService } from './config.service';

@Module({
  imports: [ServersModule, SyncModule, ToolsModule, UpstreamModule, PinningModule],
  controllers: [ConfigController],
  providers: [ConfigService, ConfigFileStartup],
})
export class ConfigAsCodeModule {}
