import { All, Controller, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { ServerTokensAllowed } from '../auth/auth.decorators';
import { McpEndpoint } from './http/mcp-endpoint.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The MCP endpoints (Streamable HTTP); documented in the README rather than OpenAPI. */
@ApiExcludeController()
@ServerTokensAllowed()
@Controller()
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @All('mcp')
  all(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.endpoint.handle(request, response, { kind: 'all' });
  }

  @All('servers/:serverId/mcp')
  async server(
    @Param('serverId') serverId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    if (!UUID.test(serverId)) {
      response.status(404).json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'No such virtual server' },
      });
      return;
    }
    return this.endpoint.handle(request, response, {
      kind: 'server',
      serverId: serverId.toLowerCase(),
    });
  }
}
