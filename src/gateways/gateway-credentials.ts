import { seal, unseal } from '../common/secret-box';
import { type GatewayAuthType, type OAuthMode } from './gateway.entity';

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

/** Decrypted upstream credentials; only the upstream client ever sees them. */
export type GatewayCredentials =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'headers'; headers: Record<string, string> }
  | OAuthSettings;

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
      return credentials.clientSecret ? [credentials.clientSecret] : [];
  }
}

export function credentialsType(credentials: GatewayCredentials | undefined): GatewayAuthType {
  return credentials?.type ?? 'none';
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
