import { Controller, Delete, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { McpRoute } from '../auth/auth.decorators';
import { McpEndpoint } from './http/mcp-endpoint.service';
import { type McpScope } from './mcp-scope';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The MCP endpoints (Streamable HTTP: POST messages, GET the stream, DELETE the session),
 * documented in the README rather than OpenAPI.
 */
@ApiExcludeController()
@McpRoute()
@Controller()
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post('mcp')
  postAll(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.endpoint.handle(request, response, { kind: 'all' });
  }

  @Get('mcp')
  getAll(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.endpoint.handle(request, response, { kind: 'all' });
  }

  @Delete('mcp')
  deleteAll(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.endpoint.handle(request, response, { kind: 'all' });
  }

  @Post('servers/:serverId/mcp')
  postServer(
    @Param('serverId') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    return this.serve(id, request, response);
  }

  @Get('servers/:serverId/mcp')
  getServer(
    @Param('serverId') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    return this.serve(id, request, response);
  }

  @Delete('servers/:serverId/mcp')
  deleteServer(
    @Param('serverId') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    return this.serve(id, request, response);
  }

  private async serve(serverId: string, request: Request, response: Response): Promise<void> {
    if (!UUID.test(serverId)) {
      response.status(404).json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'No such virtual server' },
      });
      return;
    }
    const scope: McpScope = { kind: 'server', serverId: serverId.toLowerCase() };
    await this.endpoint.handle(request, response, scope);
  }
}
