import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module';
import { McpModule } from '../mcp/mcp.module';
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
import { AdminSessionService } from './admin-session.service';
import { AdminToolSearch } from './admin-tool-search';
import { AdminToolsController } from './admin-tools.controller';
import { FlashMessages } from './flash.service';

/** Server-rendered admin pages over the same services as the REST API. */
@Module({
  imports: [GatewaysModule, ToolsModule, ServersModule, SyncModule, McpModule],
  controllers: [
    AdminLoginController,
    AdminDashboardController,
    AdminGatewaysController,
    AdminToolsController,
    AdminServersController,
    AdminNotFoundController,
  ],
  providers: [
    AdminSessionService,
    AdminSessionGuard,
    AdminExceptionFilter,
    AdminPages,
    AdminCatalog,
    AdminToolSearch,
    FlashMessages,
  ],
  exports: [AdminSessionService],
})
export class AdminModule {}
