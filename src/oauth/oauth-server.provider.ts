import { Injectable } from '@nestjs/common';
import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { AuthorizationRequests } from './authorization-request';
import { OAuthError, OAuthErrorCode } from './endpoints/oauth-error';
import { OAuthClientsStore } from './oauth-clients.store';
import { resourceTarget } from '../auth/oauth-resource';

/** The one scope: use the MCP endpoint the token is bound to. */
export const MCP_SCOPE = 'mcp';

/** An authorization request whose client, redirect URI and PKCE challenge were checked. */
export interface AuthorizationParams {
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  scopes: string[];
  resource: string | undefined;
}

/**
 * The embedded authorization server's decisions behind its endpoints (`endpoints/`), which read
 * and check the requests: what may be asked for, and where the browser goes to consent.
 */
@Injectable()
export class PorticoOAuthProvider {
  readonly requests: AuthorizationRequests;
  /** The issuer identifier (RFC 8414), also sent as `iss` with every authorization response. */
  readonly issuer: string;

  constructor(
    readonly clientsStore: OAuthClientsStore,
    secrets: SecretSettings,
    private readonly serverSettings: ServerSettings,
  ) {
    this.requests = new AuthorizationRequests(secrets.jwtSecret);
    this.issuer = new URL(serverSettings.publicUrl).origin;
  }

  /**
   * Where the browser goes next: the consent page (which asks the user to sign in first), carrying
   * the request signed. The resource (RFC 8707) is required: a token is always bound to one endpoint.
   */
  consentUrl(client: OAuthClientInformationFull, params: AuthorizationParams): string {
    if (!params.resource)
      throw new OAuthError(
        OAuthErrorCode.InvalidTarget,
        'resource is required: the URL of the MCP endpoint (RFC 8707)',
      );
    const resource = new URL(params.resource).href;
    if (!resourceTarget(resource, this.serverSettings.publicUrl))
      throw new OAuthError(
        OAuthErrorCode.InvalidTarget,
        `${resource} is not an MCP endpoint of this server`,
      );
    const unknown = params.scopes.filter((scope) => scope !== MCP_SCOPE && scope !== '');
    if (unknown.length > 0)
      throw new OAuthError(OAuthErrorCode.InvalidScope, `Unknown scope: ${unknown.join(' ')}`);
    const request = this.requests.seal({
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      state: params.state ?? null,
      scope: MCP_SCOPE,
      resource,
    });
    return `${this.serverSettings.publicUrl}/oauth/consent?request=${encodeURIComponent(request)}`;
  }
}
