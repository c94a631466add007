import { McpRegistryModule } from '../mcp-registry/mcp-registry.module';
import { AdminMcpRegistryController } from './admin-mcp-registry.controller';
import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module';
import { McpModule } from '../mcp/mcp.module';
import { PinningModule } from '../pinning/pinning.module';
import { PromptsModule } from '../prompts/prompts.module';
import { SkillsModule } from '../skills/skills.module';
import { ResourcesModule } from '../resources/resources.module';
import { TeamsModule } from '../teams/teams.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { ServersModule } from '../servers/servers.module';
import { SyncModule } from '../sync/sync.module';
import { ToolsModule } from '../tools/tools.module';
import { AdminAuditController } from './admin-audit.controller';
import { AdminCatalog } from './admin-catalog';
import { AdminConnectionsController } from './admin-connections.controller';
import { AdminDashboardController } from './admin-dashboard.controller';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminGatewaysController } from './admin-gateways.controller';
import { AdminLoginController } from './admin-login.controller';
import { AdminNotFoundController } from './admin-not-found.controller';
import { AdminPages } from './admin-pages.service';
import { AdminPromptsController } from './admin-prompts.controller';
import { AdminSkillsController } from './admin-skills.controller';
import { AdminQuarantineController } from './admin-quarantine.controller';
import { AdminRateLimitsController } from './admin-rate-limits.controller';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { PoliciesModule } from '../policies/policies.module';
import { PolicyDryRunModule } from '../policy-dry-run/policy-dry-run.module';
import { AdminPlaygroundController } from './admin-playground.controller';
import { ConsolidatedToolsModule } from '../consolidated-tools/consolidated-tools.module';
import { AdminConsolidatedToolsController } from './admin-consolidated-tools.controller';
import { AdminPoliciesController } from './admin-policies.controller';
import { AdminResourcesController } from './admin-resources.controller';
import { AdminServersController } from './admin-servers.controller';
import { AdminSessionGuard } from './admin-session.guard';
import { AdminSsoController } from './admin-sso.controller';
import { AdminTeamsController } from './admin-teams.controller';
import { AdminTokensController } from './admin-tokens.controller';
import { AdminToolSearch } from './admin-tool-search';
import { AdminToolsController } from './admin-tools.controller';
import { AdminUsersController } from './admin-users.controller';
import { FlashMessages } from './flash.service';
import { Playground } from './playground.service';
import { ServerPickersBuilder } from './server-pickers';

/** Server-rendered admin pages over the same services as the REST API. */
@Module({
  imports: [
    GatewaysModule,
    McpRegistryModule,
    ToolsModule,
    ResourcesModule,
    PromptsModule,
    SkillsModule,
    PinningModule,
    ServersModule,
    ConsolidatedToolsModule,
    SyncModule,
    McpModule,
    TeamsModule,
    TokensModule,
    UsersModule,
    RateLimitsModule,
    PoliciesModule,
    PolicyDryRunModule,
  ],
  controllers: [
    AdminLoginController,
    AdminMcpRegistryController,
    AdminDashboardController,
    AdminGatewaysController,
    AdminToolsController,
    AdminPromptsController,
    AdminSkillsController,
    AdminResourcesController,
    AdminServersController,
    AdminTokensController,
    AdminUsersController,
    AdminTeamsController,
    AdminRateLimitsController,
    AdminPoliciesController,
    AdminPlaygroundController,
    AdminConsolidatedToolsController,
    AdminSsoController,
    AdminAuditController,
    AdminQuarantineController,
    AdminConnectionsController,
    AdminNotFoundController,
  ],
  providers: [
    AdminSessionGuard,
    AdminExceptionFilter,
    AdminPages,
    AdminCatalog,
    AdminToolSearch,
    FlashMessages,
    ServerPickersBuilder,
    Playground,
  ],
  exports: [AdminPages, AdminSessionGuard, AdminExceptionFilter],
})
export class AdminModule {}
