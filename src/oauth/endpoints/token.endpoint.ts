import { type Request, type Response } from 'express';
import { type OAuthClientsStore } from '../oauth-clients.store';
import { type OAuthGrants } from '../oauth-grants.service';
import { authenticateClient } from './client-authentication';
import { OAuthError, OAuthErrorCode } from './oauth-error';
import { type OAuthParams, optionalParam, paramsOf, requiredParam, urlParam } from './oauth-params';
import { verifierMatches } from './pkce';

/**
 * POST /oauth/token: an authorization code with its PKCE verifier, or a refresh token (rotated:
 * the presented one is spent), for a new access and refresh token.
 */
export function tokenEndpoint(clients: OAuthClientsStore, grants: OAuthGrants) {
  return async (request: Request, response: Response): Promise<void> => {
    const params = paramsOf(request);
    const client = await authenticateClient(clients, params);
    const grantType = requiredParam(params, 'grant_type');
    switch (grantType) {
      case 'authorization_code': {
        const code = requiredParam(params, 'code');
        const verifier = requiredParam(params, 'code_verifier');
        const redirectUri = optionalParam(params, 'redirect_uri');
        const resource = resourceOf(params);
        // Asking for the challenge first also revokes the grant of a code that comes back.
        const challenge = await grants.challenge(client.client_id, code);
        if (!verifierMatches(verifier, challenge))
          throw new OAuthError(
            OAuthErrorCode.InvalidGrant,
            'code_verifier does not match the challenge',
          );
        response
          .status(200)
          .json(await grants.exchangeCode(client.client_id, code, redirectUri, resource));
        return;
      }
      case 'refresh_token': {
        // A narrower `scope` needs no handling: there is one scope.
        const refreshToken = requiredParam(params, 'refresh_token');
        const resource = resourceOf(params);
        response.status(200).json(await grants.refresh(client.client_id, refreshToken, resource));
        return;
      }
      default:
        throw new OAuthError(
          OAuthErrorCode.UnsupportedGrantType,
          'The grant type is not supported by this authorization server.',
        );
    }
  };
}

function resourceOf(params: OAuthParams): URL | undefined {
  const resource = urlParam(params, 'resource');
  return resource === undefined ? undefined : new URL(resource);
}
