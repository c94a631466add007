import { Controller, Delete, Get, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { McpRoute } from '../../auth/auth.decorators';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { type Principal } from '../../auth/principal';
import { McpRefusal } from '../mcp-errors';
import { type McpScope } from '../mcp-scope';
import { LegacySseEndpoint } from './legacy-sse.endpoint';
import { McpExceptionFilter } from './mcp-exception.filter';
import { checkAccess, StreamableHttpEndpoint } from './streamable-http.endpoint';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The scope of `/servers/:serverId/...`: 404 for what cannot be a server id. */
function serverScope(serverId: string): McpScope {
  if (!UUID.test(serverId)) throw new McpRefusal(404, 'No such virtual server');
  return { kind: 'server', serverId: serverId.toLowerCase() };
}

const ALL: McpScope = { kind: 'all' };

/**
 * The MCP endpoints, documented in the README rather than OpenAPI: Streamable HTTP (POST
 * messages, GET the stream, DELETE the session) at `/mcp` and `/servers/:id/mcp`, and the older
 * HTTP+SSE transport at `/sse` and `/servers/:id/sse` with its message URLs.
 */
@ApiExcludeController()
@McpRoute()
@UseFilters(McpExceptionFilter)
@Controller()
export class McpController {
  constructor(
    private readonly streamable: StreamableHttpEndpoint,
    private readonly legacy: LegacySseEndpoint,
  ) {}

  @Post('mcp')
  postAll(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() who: Principal) {
    return this.streamable.post(req, res, this.allowed(ALL, req), who);
  }

  @Get('mcp')
  getAll(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() who: Principal) {
    return this.streamable.get(req, res, this.allowed(ALL, req), who);
  }

  @Delete('mcp')
  deleteAll(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() who: Principal) {
    return this.streamable.delete(req, res, this.allowed(ALL, req), who);
  }

  @Post('servers/:serverId/mcp')
  postServer(
    @Param('serverId') id: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPrincipal() who: Principal,
  ) {
    return this.streamable.post(req, res, this.allowed(serverScope(id), req), who);
  }

  @Get('servers/:serverId/mcp')
  getServer(
    @Param('serverId') id: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPrincipal() who: Principal,
  ) {
    return this.streamable.get(req, res, this.allowed(serverScope(id), req), who);
  }

  @Delete('servers/:serverId/mcp')
  deleteServer(
    @Param('serverId') id: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentPrincipal() who: Principal,
  ) {
    return this.streamable.delete(req, res, this.allowed(serverScope(id), req), who);
  }

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

  private allowed(scope: McpScope, request: Request): McpScope {
    checkAccess(scope, request);
    return scope;
  }
}
