import { Module } from '@nestjs/common';
import { OriginalNamesQuery } from './original-names.query';
import { ServerMembersStore } from './server-members.store';
import { ServersController } from './servers.controller';
import { ServersService } from './servers.service';

@Module({
  controllers: [ServersController],
  providers: [ServersService, ServerMembersStore, OriginalNamesQuery],
  exports: [ServersService],
})
export class ServersModule {}
