import { type DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from './admin/admin.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { type Settings } from './config/settings';
import { ConsolidatedToolsModule } from './consolidated-tools/consolidated-tools.module';
import { ConfigAsCodeModule } from './config-as-code/config-as-code.module';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { GatewaysModule } from './gateways/gateways.module';
import { HealthModule } from './health/health.module';
import { McpModule } from './mcp/mcp.module';
import { McpRegistryModule } from './mcp-registry/mcp-registry.module';
import { OAuthModule } from './oauth/oauth.module';
import { loggingModule } from './observability/logging';
import { PinningModule } from './pinning/pinning.module';
import { PromptsModule } from './prompts/prompts.module';
import { SkillsModule } from './skills/skills.module';
import { ResourcesModule } from './resources/resources.module';
import { ServersModule } from './servers/servers.module';
import { PoliciesModule } from './policies/policies.module';
import { PolicyDryRunModule } from './policy-dry-run/policy-dry-run.module';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { ApprovalsModule } from './approvals/approvals.module';
import { SyncModule } from './sync/sync.module';
import { TeamsModule } from './teams/teams.module';
import { TokensModule } from './tokens/tokens.module';
import { ToolsModule } from './tools/tools.module';
import { UsersModule } from './users/users.module';

@Module({})
export class AppModule {
  static forRoot(config: Settings): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule(config),
        DatabaseModule,
        EventsModule.forRoot(config),
        AuditModule,
        // First among the features, so that Express tries the MCP routes, the hot path, before
        // every REST and admin route.
        McpModule,
        AuthModule,
        UsersModule,
        TeamsModule,
        TokensModule,
        GatewaysModule,
        McpRegistryModule,
        ToolsModule,
        ResourcesModule,
        PromptsModule,
        SkillsModule,
        PinningModule,
        ServersModule,
        ConsolidatedToolsModule,
        PoliciesModule,
        PolicyDryRunModule,
        RateLimitsModule,
        ApprovalsModule,
        SyncModule,
        HealthModule,
        AdminModule,
        OAuthModule,
        ConfigAsCodeModule,
      ],
    };
  }
}
