import { Get, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { AuditStats } from '../audit/audit-stats';
import { MinRole } from '../auth/auth.decorators';
import { roleAtLeast } from '../common/roles';
import { ServerSettings } from '../config/slices/server.settings';
import { QuarantineQuery } from '../pinning/quarantine.query';
import { ToolsService } from '../tools/tools.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { barChart, columnChart } from './svg-charts';
import { syncReportView } from './sync-report-view';
import { pageScope } from './team-field';

const RECENT_SYNCS = 10;

@AdminController('admin')
@MinRole('member')
export class AdminDashboardController {
  constructor(
    private readonly catalog: AdminCatalog,
    private readonly tools: ToolsService,
    private readonly config: ServerSettings,
    private readonly pages: AdminPages,
    private readonly stats: AuditStats,
    private readonly quarantine: QuarantineQuery,
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
    const charts = operator ? await this.lastHour(request) : null;
    await this.pages.render(request, response, 'dashboard', {
      charts,
      title: 'Dashboard',
      section: 'dashboard',
      operator,
      mayUseAll: request.principal!.role === 'admin',
      counts: {
        gateways: gateways.length,
        activeGateways: gateways.filter((gateway) => gateway.enabled).length,
        tools: tools.total,
        quarantined: operator ? await this.quarantine.count(scope) : 0,
        servers: servers.length,
      },
      unhealthy: gateways.filter(
        (gateway) => gateway.status !== 'healthy' && gateway.status !== 'unknown',
      ),
      recentSyncs,
      mcpUrl: `${this.config.publicUrl}/mcp`,
      tokenUrl: `${this.config.publicUrl}/api/v1/auth/token`,
      servers,
    });
  }

  /**
   * Calls per minute, the share of them that failed, and the slowest tools, over the last hour
   * of the audit trail (as far as this person reads it), drawn as inline SVG.
   */
  private async lastHour(request: Request) {
    const principal = request.principal!;
    const [minutes, slowest] = await Promise.all([
      this.stats.perMinute(principal),
      this.stats.slowestTools(principal),
    ]);
    const label = (minute: Date) => minute.toISOString().slice(11, 16);
    const calls = minutes.reduce((sum, minute) => sum + minute.calls, 0);
    const errors = minutes.reduce((sum, minute) => sum + minute.errors, 0);
    return {
      calls,
      errorRate: calls === 0 ? '0' : ((100 * errors) / calls).toFixed(1),
      callsSvg: columnChart(
        minutes.map((minute) => ({ label: label(minute.minute), value: minute.calls })),
        { title: 'MCP calls per minute, last hour (UTC)', unit: 'calls', cssClass: 'calls' },
      ),
      errorsSvg: columnChart(
        minutes.map((minute) => ({
          label: label(minute.minute),
          value: minute.calls === 0 ? 0 : (100 * minute.errors) / minute.calls,
        })),
        { title: 'Error rate per minute, last hour (UTC)', unit: '%', cssClass: 'errors' },
      ),
      slowestSvg:
        slowest.length === 0
          ? null
          : barChart(
              slowest.map((tool) => ({ label: tool.tool, value: tool.p95Ms })),
              { title: 'Slowest tools by 95th percentile, last hour', unit: 'ms p95' },
            ),
      slowest,
    };
  }
}
