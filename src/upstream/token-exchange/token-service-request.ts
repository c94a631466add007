import { type TokenExchangeSettings } from '../upstream-credentials';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** Microsoft Entra ID's on-behalf-of flow: a JWT bearer grant, not RFC 8693's. */
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** What Portico asks of the token service: a token for the caller, or one for itself. */
export type TokenRequest =
  { kind: 'exchange'; subjectToken: string; actorToken?: string } | { kind: 'own' };

/** One HTTP request to the token service: its form body and headers. */
export interface TokenServiceRequest {
  body: URLSearchParams;
  headers: Record<string, string>;
}

/**
 * The form a token service takes (RFC 8693 §2.1, or Entra's on-behalf-of), with Portico's client
 * authentication (RFC 6749 §2.3.1: form-encoded id and secret in Basic, or in the body). A token
 * for Portico itself (its sync, and its actor token) is a client credentials grant at the same
 * service, for the same audience.
 */
export function tokenServiceRequest(
  settings: TokenExchangeSettings,
  request: TokenRequest,
): TokenServiceRequest {
  const body = new URLSearchParams();
  if (request.kind === 'own') body.set('grant_type', 'client_credentials');
  else if (settings.dialect === 'entra-obo') {
    body.set('grant_type', JWT_BEARER_GRANT);
    body.set('assertion', request.subjectToken);
    body.set('requested_token_use', 'on_behalf_of');
  } else {
    body.set('grant_type', TOKEN_EXCHANGE_GRANT);
    body.set('subject_token', request.subjectToken);
    body.set('subject_token_type', ACCESS_TOKEN_TYPE);
    if (request.actorToken) {
      body.set('actor_token', request.actorToken);
      body.set('actor_token_type', ACCESS_TOKEN_TYPE);
    }
  }
  // Entra names the upstream by its scope (`api://upstream/.default`) alone.
  if (settings.dialect !== 'entra-obo' || request.kind === 'own') {
    if (settings.audience) body.set('audience', settings.audience);
    if (settings.resource) body.set('resource', settings.resource);
  }
  if (settings.scope) body.set('scope', settings.scope);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (settings.clientAuth === 'client_secret_basic' && settings.clientSecret !== undefined) {
    const pair = `${formEncode(settings.clientId)}:${formEncode(settings.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    body.set('client_id', settings.clientId);
    if (settings.clientSecret !== undefined) body.set('client_secret', settings.clientSecret);
  }
  return { body, headers };
}

/** A token the service issued, and until when to use it. */
export interface IssuedToken {
  accessToken: string;
  /** Epoch ms at which it expires; null when the service did not say. */
  expiresAt: number | null;
}

/** What a token service's answer says: the token, or why it refused, in words to show. */
export function readTokenResponse(
  status: number,
  json: unknown,
  now = Date.now(),
): IssuedToken | { refused: string } {
  const answer = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  if (status < 200 || status >= 300) {
    const code = shortText(answer.error) ?? `HTTP ${status}`;
    const description = shortText(answer.error_description);
    return { refused: description ? `${code}: ${description}` : code };
  }
  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || accessToken.length === 0 || accessToken.length > 16_384)
    return { refused: 'the answer holds no access_token' };
  const type = answer.token_type;
  if (typeof type === 'string' && !['bearer', 'n_a'].includes(type.toLowerCase()))
    return { refused: `the token issued is of type '${shortText(type)}', not a bearer token` };
  const expiresIn = answer.expires_in;
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  return {
    accessToken,
    expiresAt:
      typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
        ? now + seconds * 1000
        : null,
  };
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/** A field of the service's answer fit to show: a short single line, else nothing. */
function shortText(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return null;
  return value.replace(/[\r\n\t]+/g, ' ').slice(0, 200);
}
