import { Module } from '@nestjs/common';
import { SyncModule } from '../sync/sync.module';
import { TeamsModule } from '../teams/teams.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { GatewaysController } from './gateways.controller';
import { GatewaysService } from './gateways.service';

@Module({
  imports: [SyncModule, TeamsModule, UpstreamModule],
  controllers: [GatewaysController],
  providers: [GatewaysService],
  exports: [GatewaysService],
})
export class GatewaysModule {}
