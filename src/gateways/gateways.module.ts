import { Module } from '@nestjs/common';
import { PinningModule } from '../pinning/pinning.module';
import { SyncModule } from '../sync/sync.module';
import { TeamsModule } from '../teams/teams.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { GatewaysController } from './gateways.controller';
import { GatewayConnectionsController } from './gateway-connections.controller';
import { GatewayConnections } from './gateway-connections.service';
import { GatewaysService } from './gateways.service';

@Module({
  imports: [SyncModule, TeamsModule, UpstreamModule, PinningModule],
  controllers: [GatewaysController, GatewayConnectionsController],
  providers: [GatewaysService, GatewayConnections],
  exports: [GatewaysService, GatewayConnections],
})
export class GatewaysModule {}
