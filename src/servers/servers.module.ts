import { Module } from '@nestjs/common';
import { OriginalNamesQuery } from './original-names.query';
import { ServerMembersStore } from './server-members.store';
import { TeamsModule } from '../teams/teams.module';
import { TokensModule } from '../tokens/tokens.module';
import { ServersController } from './servers.controller';
import { ServersService } from './servers.service';

@Module({
  imports: [TeamsModule, TokensModule],
  controllers: [ServersController],
  providers: [ServersService, ServerMembersStore, OriginalNamesQuery],
  exports: [ServersService, ServerMembersStore, OriginalNamesQuery],
})
export class ServersModule {}
