import { Injectable } from '@nestjs/common';
import { type TeamScope } from '../auth/team-scope';
import { MAX_PAGE_SIZE, type Page, type PageQueryDto } from '../common/page.dto';
import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { GatewaysService } from '../gateways/gateways.service';
import { type ServerResponseDto } from '../servers/dto/server-response.dto';
import { ServersService } from '../servers/servers.service';
import { type ToolResponseDto } from '../tools/dto/tool-response.dto';
import { ToolsService } from '../tools/tools.service';

/** Whole lists for pickers, filters and the dashboard, read page by page through the services. */
@Injectable()
export class AdminCatalog {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly tools: ToolsService,
    private readonly servers: ServersService,
  ) {}

  allGateways(scope: TeamScope): Promise<GatewayResponseDto[]> {
    return everyPage((page) => this.gateways.list(page, scope));
  }

  gatewayNames(scope: TeamScope): ReturnType<GatewaysService['summaries']> {
    return this.gateways.summaries(scope);
  }

  allTools(scope: TeamScope): Promise<ToolResponseDto[]> {
    return everyPage((page) => this.tools.list(page, scope));
  }

  allServers(scope: TeamScope): Promise<ServerResponseDto[]> {
    return everyPage((page) => this.servers.list(page, scope));
  }
}

export async function everyPage<T>(list: (page: PageQueryDto) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await list({ limit: MAX_PAGE_SIZE, offset: items.length });
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
}
