import { Get, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { roleAtLeast } from '../auth/roles';
import { AppConfig } from '../config/app-config';
import { ToolsService } from '../tools/tools.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { syncReportView } from './sync-report-view';
import { pageScope } from './team-field';

const RECENT_SYNCS = 10;

@AdminController('admin')
@MinRole('member')
export class AdminDashboardController {
  constructor(
    private readonly catalog: AdminCatalog,
    private readonly tools: ToolsService,
    private readonly config: AppConfig,
    private readonly pages: AdminPages,
  ) {}

  /** Members see their servers and how to connect; operators and admins their catalogue too. */
  @Get()
  async dashboard(@Req() request: Request, @Res() response: Response): Promise<void> {
    const scope = pageScope(request);
    const operator = roleAtLeast(request.principal!.role, 'operator');
    const gateways = operator ? await this.catalog.allGateways(scope) : [];
    const servers = await this.catalog.allServers(scope);
    const tools = operator ? await this.tools.list({ limit: 1, offset: 0 }, scope) : { total: 0 };
    const recentSyncs = gateways
      .filter((gateway) => gateway.lastSyncAt !== null)
      .sort((a, b) => b.lastSyncAt!.localeCompare(a.lastSyncAt!))
      .slice(0, RECENT_SYNCS)
      .map((gateway) => ({ gateway, report: syncReportView(gateway.lastSyncReport) }));
    await this.pages.render(request, response, 'dashboard', {
      title: 'Dashboard',
      section: 'dashboard',
      operator,
      mayUseAll: request.principal!.role === 'admin',
      counts: {
        gateways: gateways.length,
        activeGateways: gateways.filter((gateway) => gateway.enabled).length,
        tools: tools.total,
        servers: servers.length,
      },
      unhealthy: gateways.filter((gateway) => gateway.status === 'unreachable'),
      recentSyncs,
      mcpUrl: `${this.config.publicUrl}/mcp`,
      tokenUrl: `${this.config.publicUrl}/api/v1/auth/token`,
      servers,
    });
  }
}
