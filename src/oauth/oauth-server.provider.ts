import { Injectable } from '@nestjs/common';
import {
  type AuthorizationParams,
  type OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  InvalidScopeError,
  InvalidTargetError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  type OAuthClientInformationFull,
  type OAuthTokenRevocationRequest,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Response } from 'express';
import { OAuthAccessTokens } from '../auth/oauth-access-token';
import { AppConfig } from '../config/app-config';
import { AuthorizationRequests } from './authorization-request';
import { OAuthClientsStore } from './oauth-clients.store';
import { OAuthGrants } from './oauth-grants.service';
import { resourceTarget } from './oauth-resource';

/** The one scope: use the MCP endpoint the token is bound to. */
export const MCP_SCOPE = 'mcp';

/**
 * The embedded authorization server behind the SDK's handlers, which validate requests, PKCE
 * (S256 only), client authentication and redirect URIs; this decides what is granted and keeps it.
 */
@Injectable()
export class PorticoOAuthProvider implements OAuthServerProvider {
  readonly requests: AuthorizationRequests;

  constructor(
    readonly clientsStore: OAuthClientsStore,
    private readonly grants: OAuthGrants,
    private readonly accessTokens: OAuthAccessTokens,
    private readonly config: AppConfig,
  ) {
    this.requests = new AuthorizationRequests(config.jwtSecret);
  }

  /**
   * Sends the browser to the consent page (which asks the user to sign in first), carrying the
   * request signed. The resource (RFC 8707) is required: a token is always bound to one endpoint.
   */
  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    response: Response,
  ): Promise<void> {
    if (!params.resource)
      throw new InvalidTargetError('resource is required: the URL of the MCP endpoint (RFC 8707)');
    if (!resourceTarget(params.resource.href, this.config.publicUrl))
      throw new InvalidTargetError(`${params.resource.href} is not an MCP endpoint of this server`);
    const unknown = (params.scopes ?? []).filter((scope) => scope !== MCP_SCOPE && scope !== '');
    if (unknown.length > 0) throw new InvalidScopeError(`Unknown scope: ${unknown.join(' ')}`);
    const request = this.requests.seal({
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      state: params.state ?? null,
      scope: MCP_SCOPE,
      resource: params.resource.href,
    });
    response.redirect(
      302,
      `${this.config.publicUrl}/oauth/consent?request=${encodeURIComponent(request)}`,
    );
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return this.grants.challenge(client.client_id, code);
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return this.grants.exchangeCode(client.client_id, code, redirectUri, resource);
  }

  exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    _scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    return this.grants.refresh(client.client_id, refreshToken, resource);
  }

  /** For the SDK's interface; requests to Portico are authorized by the AuthGuard instead. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const claims = await this.accessTokens.verify(token);
    return {
      token,
      clientId: claims.client_id,
      scopes: claims.scope.split(' ').filter(Boolean),
      expiresAt: claims.exp,
      resource: new URL(claims.aud),
    };
  }

  revokeToken(
    client: OAuthClientInformationFull,
    request: OAuthTokenRevocationRequest,
  ): Promise<void> {
    return this.grants.revokeToken(client.client_id, request.token);
  }
}
