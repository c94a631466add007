import { Module } from '@nestjs/common';
import { GatewayRecords, GatewayRowRecords } from './gateway-records';
import { UpstreamOAuth } from './oauth/upstream-oauth.service';
import { DatabaseOAuthStore, UpstreamOAuthStore } from './oauth/upstream-oauth.store';
import { StdioSupervisor } from './transport/stdio/stdio-supervisor.service';
import { ParkedCalls } from './sessions/parked-calls';
import { UpstreamClient } from './upstream-client';
import { UpstreamConnector } from './upstream-connector.service';
import { UpstreamEras } from './eras/upstream-eras.service';
import { UpstreamAdmissions } from './resilience/upstream-admissions.service';
import { UpstreamPools } from './transport/upstream-pools.service';
import { StoredUpstreamTargets, UpstreamTargets } from './upstream-targets.service';
import { TokenExchange } from './token-exchange/token-exchange.service';

/** The only code that talks to upstreams, whatever their transport. */
@Module({
  providers: [
    { provide: GatewayRecords, useClass: GatewayRowRecords },
    { provide: UpstreamOAuthStore, useClass: DatabaseOAuthStore },
    UpstreamClient,
    ParkedCalls,
    UpstreamConnector,
    UpstreamPools,
    { provide: UpstreamTargets, useClass: StoredUpstreamTargets },
    UpstreamOAuth,
    StdioSupervisor,
    UpstreamAdmissions,
    UpstreamEras,
    TokenExchange,
  ],
  exports: [
    UpstreamClient,
    UpstreamTargets,
    UpstreamOAuth,
    StdioSupervisor,
    UpstreamAdmissions,
    UpstreamEras,
  ],
})
export class UpstreamModule {}
