import { TaskCalls } from './tasks/task-calls';
import { TaskListens } from './tasks/task-listens';
import { TaskAccess } from './tasks/task-access';
import { TaskWatch } from './tasks/task-watch';
import { TASK_ID_SEALER } from './tasks/task-id-sealer.provider';
import { Module } from '@nestjs/common';
import { ConsolidatedToolsModule } from '../consolidated-tools/consolidated-tools.module';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { PromptsModule } from '../prompts/prompts.module';
import { ResourcesModule } from '../resources/resources.module';
import { ToolsModule } from '../tools/tools.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { AppToolLookup } from './apps/app-tool-lookup.service';
import { McpApps } from './apps/mcp-apps.service';
import { PrefabRenderer } from './apps/prefab/prefab-renderer.service';
import { Directories } from './directory/directories.service';
import { Dispatcher } from './core/dispatcher';
import { PromptCalls } from './core/prompt-calls';
import { ResourceCalls } from './core/resource-calls';
import { ToolCalls } from './core/tool-calls';
import { CallGuard } from './guard/call-guard';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { ApprovalsModule } from '../approvals/approvals.module';
import { PoliciesModule } from '../policies/policies.module';
import { ToolSearchService } from './search/tool-search.service';
import { ModernWire } from './http/modern-wire';
import { ListenEndpoint } from './listen/listen.endpoint';
import { ReadableResources } from './listen/readable-resources';
import { ResourceWatch } from './listen/resource-watch';
import { SessionRegistry } from './sessions/session-registry.service';
import { SessionRequests } from './sessions/session-requests';
import { SessionSubscriptions } from './sessions/session-subscriptions';
import { ConsentWaits } from './sessions/consent';
import { SessionTasks } from './sessions/session-tasks';
import { SessionStore } from './sessions/session.store';
import { StreamEvents } from './sessions/stream-events.store';
import { LegacySseEndpoint } from './sessions/legacy-sse.endpoint';
import { LegacySseController } from './http/legacy-sse.controller';
import { McpHttpHandler } from './http/mcp-http.handler';
import { StreamableHttpEndpoint } from './sessions/session.endpoint';
import { SessionStreamEndpoint } from './sessions/session-stream.endpoint';
import { StreamQuota } from './streams/stream-quota';
import { ApprovalStep } from './core/approval-step';
import { Continuation } from './core/continuation';
import { REQUEST_STATE_SEALER } from './core/request-state-sealer.provider';
import { LISTEN_HUB } from './listen/listen-hub.provider';
import { PromotionStore } from './search/promotion-store';
import { SkillCalls } from './skills/skill-calls';
import { SkillDirectories } from './skills/skill-directories.service';

/**
 * The MCP endpoints, one way through: the edge (http/: receives and answers, both eras, and the
 * stateless 2026-07-28 wire), the 2025 session adapter (sessions/), then the core (core/: one
 * request, an McpRequest, whichever era it came in), and the upstream module (talks to upstreams).
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
    ConsolidatedToolsModule,
  ],
  controllers: [LegacySseController],
  providers: [
    StreamableHttpEndpoint,
    SessionStreamEndpoint,
    ModernWire,
    ListenEndpoint,
    ReadableResources,
    ResourceWatch,
    SessionRequests,
    SessionSubscriptions,
    ConsentWaits,
    SessionTasks,
    SkillCalls,
    SkillDirectories,
    McpHttpHandler,
    LegacySseEndpoint,
    StreamQuota,
    SessionStore,
    SessionRegistry,
    StreamEvents,
    Dispatcher,
    ApprovalStep,
    ToolCalls,
    CallGuard,
    ResourceCalls,
    PromptCalls,
    Directories,
    ToolSearchService,
    McpApps,
    AppToolLookup,
    PrefabRenderer,
    REQUEST_STATE_SEALER,
    Continuation,
    TaskCalls,
    TaskListens,
    TaskAccess,
    TaskWatch,
    TASK_ID_SEALER,
    LISTEN_HUB,
    PromotionStore,
  ],
  exports: [Directories, ToolSearchService, McpHttpHandler, Dispatcher, McpApps],
})
export class McpModule {}
