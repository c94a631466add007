import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { PromptsModule } from '../prompts/prompts.module';
import { ResourcesModule } from '../resources/resources.module';
import { ToolsModule } from '../tools/tools.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { AppToolLookup } from './apps/app-tool-lookup.service';
import { McpApps } from './apps/mcp-apps.service';
import { PrefabRenderer } from './apps/prefab/prefab-renderer.service';
import { Directories } from './calls/directories.service';
import { ListChanges } from './session/list-changes.service';
import { McpRouter } from './calls/mcp-router';
import { PromptCalls } from './calls/prompt-calls';
import { ResourceCalls } from './calls/resource-calls';
import { ToolCalls } from './calls/tool-calls';
import { CallGuard } from './calls/call-guard';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { PoliciesModule } from '../policies/policies.module';
import { ToolSearchService } from './search/tool-search.service';
import { ModernEndpoint } from './modern/modern.endpoint';
import { SharedUpstreams } from './modern/shared-upstreams';
import { SessionRegistry } from './session/session-registry.service';
import { SessionRequests } from './session/session-requests';
import { SessionStore } from './session/session.store';
import { StreamEvents } from './session/stream-events.store';
import { LegacySseEndpoint } from './transport/legacy-sse.endpoint';
import { LegacySseController } from './transport/legacy-sse.controller';
import { McpHttpHandler } from './transport/mcp-http.handler';
import { StreamableHttpEndpoint } from './transport/streamable-http.endpoint';
import { StreamQuota } from './transport/stream-quota';
import { InputRounds } from './mrtr/input-rounds';
import { ParkedCalls } from './mrtr/parked-calls';
import { REQUEST_STATE_SEALER } from './mrtr/request-state-sealer.provider';
import { LISTEN_HUB } from './listen/listen-hub.provider';
import { ModernPromotions } from './search/modern-promotions';

/**
 * The MCP endpoints, one way through: transport (receives and answers, both eras), then the 2025
 * session adapter (session/) or the stateless wire (modern/), then the core (calls/: one request,
 * an McpCall, whichever era it came in), and the upstream module (talks to upstreams).
 */
@Module({
  imports: [
    ToolsModule,
    ResourcesModule,
    PromptsModule,
    UpstreamModule,
    EmbeddingsModule,
    RateLimitsModule,
    ApprovalsModule,
    PoliciesModule,
  ],
  controllers: [LegacySseController],
  providers: [
    StreamableHttpEndpoint,
    ModernEndpoint,
    SharedUpstreams,
    SessionRequests,
    McpHttpHandler,
    LegacySseEndpoint,
    StreamQuota,
    SessionStore,
    SessionRegistry,
    StreamEvents,
    McpRouter,
    ToolCalls,
    CallGuard,
    ResourceCalls,
    PromptCalls,
    Directories,
    ListChanges,
    ToolSearchService,
    McpApps,
    AppToolLookup,
    PrefabRenderer,
    REQUEST_STATE_SEALER,
    InputRounds,
    ParkedCalls,
    LISTEN_HUB,
    ModernPromotions,
  ],
  exports: [Directories, ToolSearchService, McpHttpHandler],
})
export class McpModule {}
