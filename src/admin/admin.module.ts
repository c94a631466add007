import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module';
import { TeamsModule } from '../teams/teams.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { ServersModule } from '../servers/servers.module';
import { SyncModule } from '../sync/sync.module';
import { ToolsModule } from '../tools/tools.module';
import { AdminCatalog } from './admin-catalog';
import { AdminDashboardController } from './admin-dashboard.controller';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminGatewaysController } from './admin-gateways.controller';
import { AdminLoginController } from './admin-login.controller';
import { AdminNotFoundController } from './admin-not-found.controller';
import { AdminPages } from './admin-pages.service';
import { AdminServersController } from './admin-servers.controller';
import { AdminSessionGuard } from './admin-session.guard';
import { AdminSsoController } from './admin-sso.controller';
import { AdminTeamsController } from './admin-teams.controller';
import { AdminTokensController } from './admin-tokens.controller';
import { AdminToolsController } from './admin-tools.controller';
import { AdminUsersController } from './admin-users.controller';
import { FlashMessages } from './flash.service';

/** Server-rendered admin pages over the same services as the REST API. */
@Module({
  imports: [
    GatewaysModule,
    ToolsModule,
    ServersModule,
    SyncModule,
    TeamsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [
    AdminLoginController,
    AdminDashboardController,
    AdminGatewaysController,
    AdminToolsController,
    AdminServersController,
    AdminTokensController,
    AdminUsersController,
    AdminTeamsController,
    AdminSsoController,
    AdminNotFoundController,
  ],
  providers: [AdminSessionGuard, AdminExceptionFilter, AdminPages, AdminCatalog, FlashMessages],
  exports: [AdminPages, AdminSessionGuard, AdminExceptionFilter],
})
export class AdminModule {}
