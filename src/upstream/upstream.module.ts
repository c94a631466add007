import { Module } from '@nestjs/common';
import { GatewayRecords, GatewayRowRecords } from './gateway-records';
import { UpstreamOAuth } from './oauth/upstream-oauth.service';
import { DatabaseOAuthStore, UpstreamOAuthStore } from './oauth/upstream-oauth.store';
import { StdioSupervisor } from './stdio/stdio-supervisor.service';
import { UpstreamConnector } from './upstream-connector.service';
import { UpstreamEras } from './upstream-eras.service';
import { UpstreamGuards } from './upstream-guards.service';
import { UpstreamPools } from './upstream-pools.service';
import { UpstreamTargets } from './upstream-targets.service';

/** The only code that talks to upstreams, whatever their transport. */
@Module({
  providers: [
    { provide: GatewayRecords, useClass: GatewayRowRecords },
    { provide: UpstreamOAuthStore, useClass: DatabaseOAuthStore },
    UpstreamConnector,
    UpstreamPools,
    UpstreamTargets,
    UpstreamOAuth,
    StdioSupervisor,
    UpstreamGuards,
    UpstreamEras,
  ],
  exports: [
    UpstreamConnector,
    UpstreamTargets,
    UpstreamOAuth,
    StdioSupervisor,
    UpstreamGuards,
    UpstreamEras,
  ],
})
export class UpstreamModule {}
