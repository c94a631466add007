import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { type Request, type Response } from 'express';
import { type AuthorizationParams, type PorticoOAuthProvider } from '../oauth-server.provider';
import { asOAuthError, OAuthError, OAuthErrorCode } from './oauth-error';
import { type OAuthParams, optionalParam, paramsOf, requiredParam, urlParam } from './oauth-params';
import { isS256Challenge } from './pkce';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a requested redirect URI is a registered one: the exact string, except that a loopback
 * URI may use any port (RFC 8252 §7.3, OAuth 2.1 §2.3.1: native apps get an ephemeral port).
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  if (!URL.canParse(requested) || !URL.canParse(registered)) return false;
  const a = new URL(requested);
  const b = new URL(registered);
  return (
    LOOPBACK.has(a.hostname) &&
    a.protocol === b.protocol &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search
  );
}

/**
 * GET or POST /oauth/authorize. Until the client and its redirect URI are known, errors are
 * answered here (a redirect could go anywhere); after that they go back to the redirect URI.
 * Every response to the client carries `iss` (RFC 9207), so that it can tell which authorization
 * server answered; success comes later, from the consent page, with `iss` too.
 */
export function authorizeEndpoint(provider: PorticoOAuthProvider) {
  return async (request: Request, response: Response): Promise<void> => {
    const params = paramsOf(request);
    const { client, redirectUri } = await clientAndRedirect(provider, params);
    let state: string | undefined;
    try {
      state = optionalParam(params, 'state');
      response.redirect(302, provider.consentUrl(client, authorizationParams(params, redirectUri)));
    } catch (error) {
      const oauth = asOAuthError(error);
      const target = new URL(redirectUri);
      target.searchParams.set('error', oauth.code);
      target.searchParams.set('error_description', oauth.message);
      if (state !== undefined) target.searchParams.set('state', state);
      target.searchParams.set('iss', provider.issuer);
      response.redirect(302, target.href);
    }
  };
}

async function clientAndRedirect(
  provider: PorticoOAuthProvider,
  params: OAuthParams,
): Promise<{ client: OAuthClientInformationFull; redirectUri: string }> {
  const clientId = requiredParam(params, 'client_id');
  const requested = urlParam(params, 'redirect_uri');
  const client = await provider.clientsStore.getClient(clientId);
  if (!client) throw new OAuthError(OAuthErrorCode.InvalidClient, 'Invalid client_id');
  if (requested !== undefined) {
    if (!client.redirect_uris.some((registered) => redirectUriMatches(requested, registered)))
      throw new OAuthError(OAuthErrorCode.InvalidRequest, 'Unregistered redirect_uri');
    return { client, redirectUri: requested };
  }
  const [only, ...others] = client.redirect_uris;
  if (only === undefined || others.length > 0)
    throw new OAuthError(
      OAuthErrorCode.InvalidRequest,
      'redirect_uri must be specified when client has multiple registered URIs',
    );
  return { client, redirectUri: only };
}

/** The rest of the request: the code flow only, with an S256 PKCE challenge (OAuth 2.1). */
function authorizationParams(params: OAuthParams, redirectUri: string): AuthorizationParams {
  const responseType = requiredParam(params, 'response_type');
  if (responseType !== 'code')
    throw new OAuthError(
      OAuthErrorCode.UnsupportedResponseType,
      'Only the authorization code flow (response_type=code) is supported',
    );
  const codeChallenge = requiredParam(params, 'code_challenge');
  if (optionalParam(params, 'code_challenge_method') !== 'S256')
    throw new OAuthError(OAuthErrorCode.InvalidRequest, 'code_challenge_method must be S256');
  if (!isS256Challenge(codeChallenge))
    throw new OAuthError(
      OAuthErrorCode.InvalidRequest,
      'code_challenge must be the base64url SHA-256 of the code verifier',
    );
  return {
    redirectUri,
    codeChallenge,
    state: optionalParam(params, 'state'),
    scopes: optionalParam(params, 'scope')?.split(' ') ?? [],
    resource: urlParam(params, 'resource'),
  };
}
