import { type Request, type Response } from 'express';
import { type OAuthClientsStore } from '../oauth-clients.store';
import { type OAuthGrants } from '../oauth-grants.service';
import { authenticateClient } from './client-authentication';
import { optionalParam, paramsOf, requiredParam } from './oauth-params';

/**
 * POST /oauth/revoke (RFC 7009): a refresh or access token of the client ends its grant. The
 * answer is 200 whether or not the token was known, so that it tells nothing about tokens.
 */
export function revokeEndpoint(clients: OAuthClientsStore, grants: OAuthGrants) {
  return async (request: Request, response: Response): Promise<void> => {
    const params = paramsOf(request);
    const client = await authenticateClient(clients, params);
    const token = requiredParam(params, 'token');
    // A hint only speeds up the lookup (RFC 7009 §2.1); both kinds are looked for anyway.
    optionalParam(params, 'token_type_hint');
    await grants.revokeToken(client.client_id, token);
    response.status(200).json({});
  };
}
