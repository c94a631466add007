import { Controller, Get, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { McpRoute } from '../../auth/auth.decorators';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { mcpAuthorized } from '../../auth/mcp-access';
import { type Principal } from '../../auth/principal';
import { McpRefusal } from '../protocol/mcp-errors';
import { type McpScope } from '../protocol/mcp-scope';
import { LegacySseEndpoint } from '../sessions/legacy-sse.endpoint';
import { McpExceptionFilter } from './mcp-exception.filter';
import { serverScope } from './mcp-http.handler';

const ALL: McpScope = { kind: 'all' };

/**
 * The older HTTP+SSE transport (2024-11-05), documented in the README rather than OpenAPI: its
 * stream at `/sse` and `/servers/:id/sse` and its message URLs. Streamable HTTP is served by
 * McpHttpHandler ahead of Express.
 */
@ApiExcludeController()
@McpRoute()
@UseFilters(McpExceptionFilter)
@Controller()
export class LegacySseController {
  constructor(private readonly legacy: LegacySseEndpoint) {}

  @Get('sse')
  openAll(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() who: Principal) {
    return this.legacy.open(req, res, this.allowed(ALL, req), who, '/messages');
  }

  @Post('messages')
  messageAll(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() who: Principal) {
    return this.legacy.message(req, res, this.allowed(ALL, req), who);
  }

  @Get('servers/:serverId/sse')
  openServer(
    @Param('serverId') id: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPrincipal() who: Principal,
  ) {
    const scope = this.allowed(serverScope(id), req);
    return this.legacy.open(req, res, scope, who, `/servers/${id.toLowerCase()}/messages`);
  }

  @Post('servers/:serverId/messages')
  messageServer(
    @Param('serverId') id: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPrincipal() who: Principal,
  ) {
    return this.legacy.message(req, res, this.allowed(serverScope(id), req), who);
  }

  /** Whether the AuthGuard (McpAccess) authorized this request for the endpoint of this scope. */
  private allowed(scope: McpScope, request: Request): McpScope {
    if (!mcpAuthorized(request, scope))
      throw new McpRefusal(403, 'This token may not use this MCP endpoint');
    return scope;
  }
}
