import { Module } from '@nestjs/common';
import { OriginalNamesQuery } from './original-names.query';
import { ServerMembersStore } from './server-members.store';
import { TeamsModule } from '../teams/teams.module';
import { TokensModule } from '../tokens/tokens.module';
import { ServersController } from './servers.controller';
import { ServersService } from './servers.service';
import { ListedNamesQuery } from './listed-names.query';
import { ServerToolOverridesController } from './server-tool-overrides.controller';
import { ServerToolOverridesService } from './server-tool-overrides.service';

@Module({
  imports: [TeamsModule, TokensModule],
  controllers: [ServersController, ServerToolOverridesController],
  providers: [
    ServersService,
    ServerMembersStore,
    OriginalNamesQuery,
    ListedNamesQuery,
    ServerToolOverridesService,
  ],
  exports: [
    ServersService,
    ServerToolOverridesService,
    ServerMembersStore,
    OriginalNamesQuery,
    ListedNamesQuery,
  ],
})
export class ServersModule {}
