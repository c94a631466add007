import { seal, unseal } from '../common/secret-box';

/*
 * How Portico authenticates to an upstream: what a gateway stores (sealed) and the upstream
 * client uses. It sits here, below the gateways that store it, so that both import it downward.
 */

/**
 * `token-exchange`: each call carries a token a security token service issued for the upstream in
 * exchange for the caller's own (RFC 8693); the caller's token is never sent upstream.
 */
export const GATEWAY_AUTH_TYPES = ['none', 'bearer', 'headers', 'oauth', 'token-exchange'] as const;
export type GatewayAuthType = (typeof GATEWAY_AUTH_TYPES)[number];

/**
 * Whose OAuth tokens reach an `oauth` upstream: the gateway's one account (an operator connects
 * it), each caller's own account, or Portico itself as a machine client (client credentials).
 */
export const OAUTH_MODES = ['shared', 'per-user', 'client-credentials'] as const;
export type OAuthMode = (typeof OAUTH_MODES)[number];

/** How Portico takes part in OAuth towards an upstream; the tokens themselves are kept apart. */
export interface OAuthSettings {
  type: 'oauth';
  mode: OAuthMode;
  /** A client registered beforehand at the provider; without it Portico registers one (RFC 7591). */
  clientId?: string;
  clientSecret?: string;
  /** Scopes to ask for, space-separated; by default those the upstream advertises. */
  scope?: string;
}

/** The request a token service takes: RFC 8693's, or Microsoft Entra ID's on-behalf-of. */
export const TOKEN_EXCHANGE_DIALECTS = ['rfc8693', 'entra-obo'] as const;
export type TokenExchangeDialect = (typeof TOKEN_EXCHANGE_DIALECTS)[number];

/** How a client authenticates to the token service (RFC 6749 §2.3.1). */
export const TOKEN_CLIENT_AUTHS = ['client_secret_basic', 'client_secret_post'] as const;
export type TokenClientAuth = (typeof TOKEN_CLIENT_AUTHS)[number];

/**
 * Where and how Portico exchanges the caller's token for one meant for the upstream (RFC 8693).
 * Portico is a client of the token service (`clientId`, `clientSecret`); with `actor`, it also
 * states itself as the actor, with a token of its own (client credentials at the same service).
 */
export interface TokenExchangeSettings {
  type: 'token-exchange';
  tokenUrl: string;
  dialect: TokenExchangeDialect;
  clientId: string;
  clientSecret?: string;
  clientAuth: TokenClientAuth;
  /** The upstream's logical name at the token service (`audience`). */
  audience?: string;
  /** The upstream's URI (RFC 8707 `resource`). */
  resource?: string;
  scope?: string;
  actor: boolean;
}

/** Decrypted upstream credentials; only the upstream client ever sees them. */
export type GatewayCredentials =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'headers'; headers: Record<string, string> }
  | OAuthSettings
  | TokenExchangeSettings;

/** The stored form: the kind in clear, the credentials themselves sealed. */
export interface SealedCredentials {
  authType: GatewayAuthType;
  oauthMode: OAuthMode | null;
  authSecret: string | null;
}

/** The fixed HTTP headers that carry the credentials to the upstream (OAuth's are per request). */
export function credentialHeaders(credentials: GatewayCredentials): Record<string, string> {
  switch (credentials.type) {
    case 'none':
    case 'oauth':
    case 'token-exchange':
      return {};
    case 'bearer':
      return { Authorization: `Bearer ${credentials.token}` };
    case 'headers':
      return { ...credentials.headers };
  }
}

/** The secret values themselves, to keep them out of error messages. */
export function credentialSecrets(credentials: GatewayCredentials): string[] {
  switch (credentials.type) {
    case 'none':
      return [];
    case 'bearer':
      return [credentials.token];
    case 'headers':
      return Object.values(credentials.headers);
    case 'oauth':
    case 'token-exchange':
      return credentials.clientSecret ? [credentials.clientSecret] : [];
  }
}

export function sealCredentials(key: Buffer, credentials: GatewayCredentials): SealedCredentials {
  return {
    authType: credentials.type,
    oauthMode: credentials.type === 'oauth' ? credentials.mode : null,
    authSecret: credentials.type === 'none' ? null : seal(key, JSON.stringify(credentials)),
  };
}

export function openCredentials(
  key: Buffer,
  sealed: Pick<SealedCredentials, 'authType' | 'authSecret'>,
): GatewayCredentials {
  if (sealed.authType === 'none' || sealed.authSecret === null) return { type: 'none' };
  return JSON.parse(unseal(key, sealed.authSecret)) as GatewayCredentials;
}
