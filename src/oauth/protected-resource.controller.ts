import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { Public } from '../auth/auth.decorators';
import { McpAccess, type McpTarget } from '../auth/mcp-access';
import { NotFoundException } from '@nestjs/common';
import { AuthorizationServers } from './authorization-servers';
import { MCP_SCOPE } from './oauth-server.provider';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * RFC 9728 protected resource metadata of each MCP endpoint, at the path-suffixed well-known URL
 * that a 401's `WWW-Authenticate: Bearer resource_metadata=…` names. Public, and the same for a
 * server that does not exist, so that it tells nothing about which servers do.
 */
@ApiTags('oauth')
@Public()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  constructor(
    private readonly mcp: McpAccess,
    private readonly servers: AuthorizationServers,
  ) {}

  @Get('mcp')
  @Header('Access-Control-Allow-Origin', '*')
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({ summary: 'Protected resource metadata of /mcp (RFC 9728)' })
  @ApiOkResponse({ description: 'The metadata document.' })
  all(): OAuthProtectedResourceMetadata {
    return this.metadata({ kind: 'all' });
  }

  @Get('servers/:serverId/mcp')
  @Header('Access-Control-Allow-Origin', '*')
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({
    summary: 'Protected resource metadata of a virtual server’s endpoint (RFC 9728)',
  })
  @ApiOkResponse({ description: 'The metadata document.' })
  server(@Param('serverId') serverId: string): OAuthProtectedResourceMetadata {
    if (!UUID.test(serverId)) throw new NotFoundException('No such MCP endpoint.');
    return this.metadata({ kind: 'server', serverId: serverId.toLowerCase() });
  }

  private metadata(target: McpTarget): OAuthProtectedResourceMetadata {
    return {
      resource: this.mcp.resourceUrl(target),
      authorization_servers: this.servers.issuers(),
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: target.kind === 'all' ? 'Portico: every tool' : 'Portico virtual server',
    };
  }
}
