import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { type Principal } from '../auth/principal';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { SHARED_OWNER } from '../upstream/oauth/upstream-oauth-token.entity';
import { type OAuthConnectionState, UpstreamOAuth } from '../upstream/oauth/upstream-oauth.service';
import { GatewayConnectionDto, GatewayMyConnectionDto } from './dto/gateway-connection.dto';
import { GatewayConnections } from './gateway-connections.service';
import { GatewayErrorCode, GatewayException } from './gateway.exception';

/**
 * The accounts connected to OAuth upstreams. Connecting one takes a browser (the person consents
 * at the provider), so it happens on the admin page `connectUrl` names; the API reads and removes.
 */
@ApiTags('gateways')
@Controller('api/v1/gateways/:id/oauth')
export class GatewayConnectionsController {
  constructor(
    private readonly connections: GatewayConnections,
    private readonly oauth: UpstreamOAuth,
  ) {}

  @Get('me')
  @MinRole('member')
  @ApiOperation({ summary: "The caller's own connection to an OAuth upstream" })
  @ApiOkResponse({ type: GatewayMyConnectionDto })
  @ApiProblems(400, 404, 422)
  async mine(
    @UuidParam() id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<GatewayMyConnectionDto> {
    const view = await this.connections.view(id, principal);
    return {
      mode: view.gateway.mode,
      connection: view.mine?.state ? toConnection(view.mine.state) : null,
      connectUrl: this.oauth.connectUrl(id),
    };
  }

  @Delete('me')
  @MinRole('member')
  @HttpCode(204)
  @ApiOperation({ summary: "Forget the caller's own tokens for a per-user OAuth upstream" })
  @ApiNoContentResponse({ description: 'Disconnected.' })
  @ApiProblems(400, 403, 404, 422)
  async disconnectMine(
    @UuidParam() id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    if (!(await this.connections.disconnect(id, principal, 'mine'))) throw nothing();
  }

  @Get('connections')
  @MinRole('operator')
  @ApiOperation({
    summary: 'Every account connected to an OAuth upstream, with expiry and refresh failures',
  })
  @ApiOkResponse({ type: [GatewayConnectionDto] })
  @ApiProblems(400, 403, 404, 422)
  async list(
    @UuidParam() id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<GatewayConnectionDto[]> {
    return (await this.connections.connections(id, principal)).map(toConnection);
  }

  @Delete('connections/shared')
  @MinRole('operator')
  @HttpCode(204)
  @ApiOperation({ summary: "Forget the gateway's own tokens" })
  @ApiNoContentResponse({ description: 'Disconnected.' })
  @ApiProblems(400, 403, 404, 422)
  async disconnectShared(
    @UuidParam() id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    if (!(await this.connections.disconnect(id, principal, 'gateway'))) throw nothing();
  }

  @Delete('connections/users/:userId')
  @MinRole('operator')
  @HttpCode(204)
  @ApiOperation({ summary: "Forget one user's tokens for a per-user OAuth upstream" })
  @ApiNoContentResponse({ description: 'Disconnected.' })
  @ApiProblems(400, 403, 404, 422)
  async disconnectUser(
    @UuidParam() id: string,
    @UuidParam('userId') userId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    if (!(await this.connections.disconnectUser(id, userId, principal))) throw nothing();
  }
}

function toConnection(state: OAuthConnectionState): GatewayConnectionDto {
  return {
    account: state.owner === SHARED_OWNER ? 'shared' : 'user',
    userId: state.userId,
    connected: state.connected,
    expiresAt: state.expiresAt?.toISOString() ?? null,
    refreshedAt: state.refreshedAt?.toISOString() ?? null,
    refreshError: state.refreshError,
  };
}

function nothing(): GatewayException {
  return new GatewayException(GatewayErrorCode.NotFound, 'No such connection.');
}
