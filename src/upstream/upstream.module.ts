import { Module } from '@nestjs/common';
import { StdioSupervisor } from './stdio/stdio-supervisor.service';
import { UpstreamConnector } from './upstream-connector.service';
import { UpstreamPools } from './upstream-pools.service';
import { UpstreamTargets } from './upstream-targets.service';

/** The only code that talks to upstreams, whatever their transport. */
@Module({
  providers: [UpstreamConnector, UpstreamPools, UpstreamTargets, StdioSupervisor],
  exports: [UpstreamConnector, UpstreamTargets, StdioSupervisor],
})
export class UpstreamModule {}
