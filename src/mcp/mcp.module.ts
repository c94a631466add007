import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { ToolsModule } from '../tools/tools.module';
import { AppToolLookup } from './apps/app-tool-lookup.service';
import { McpApps } from './apps/mcp-apps.service';
import { PrefabRenderer } from './apps/prefab/prefab-renderer.service';
import { ToolDirectoryService } from './directory/tool-directory.service';
import { McpEndpoint } from './http/mcp-endpoint.service';
import { McpController } from './mcp.controller';
import { ToolSearchService } from './search/tool-search.service';
import { SessionRuntimes } from './session/session-runtimes.service';
import { SessionStore } from './session/session.store';
import { UpstreamPools } from './upstream/upstream-pools.service';
import { UpstreamTargets } from './upstream/upstream-targets.service';

@Module({
  imports: [GatewaysModule, ToolsModule, EmbeddingsModule],
  controllers: [McpController],
  providers: [
    McpEndpoint,
    ToolDirectoryService,
    SessionStore,
    SessionRuntimes,
    ToolSearchService,
    UpstreamTargets,
    UpstreamPools,
    McpApps,
    AppToolLookup,
    PrefabRenderer,
  ],
  exports: [ToolDirectoryService, ToolSearchService],
})
export class McpModule {}
