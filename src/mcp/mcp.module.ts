import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module';
import { ToolsModule } from '../tools/tools.module';
import { ToolDirectoryService } from './directory/tool-directory.service';
import { McpEndpoint } from './http/mcp-endpoint.service';
import { McpController } from './mcp.controller';
import { ToolSearchService } from './search/tool-search.service';
import { SessionRuntimes } from './session/session-runtimes.service';
import { SessionStore } from './session/session.store';
import { UpstreamPools } from './upstream/upstream-pools.service';
import { UpstreamTargets } from './upstream/upstream-targets.service';

@Module({
  imports: [GatewaysModule, ToolsModule],
  controllers: [McpController],
  providers: [
    McpEndpoint,
    ToolDirectoryService,
    SessionStore,
    SessionRuntimes,
    ToolSearchService,
    UpstreamTargets,
    UpstreamPools,
  ],
  exports: [ToolDirectoryService],
})
export class McpModule {}
