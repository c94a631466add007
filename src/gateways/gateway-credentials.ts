import { seal, unseal } from '../common/secret-box';
import { type GatewayAuthType } from './gateway.entity';

/** Decrypted upstream credentials; only the upstream client ever sees them. */
export type GatewayCredentials =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'headers'; headers: Record<string, string> };

/** The stored form: the kind in clear, the credentials themselves sealed. */
export interface SealedCredentials {
  authType: GatewayAuthType;
  authSecret: string | null;
}

/** The HTTP headers that carry the credentials to the upstream. */
export function credentialHeaders(credentials: GatewayCredentials): Record<string, string> {
  switch (credentials.type) {
    case 'none':
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
  }
}

export function credentialsType(credentials: GatewayCredentials | undefined): GatewayAuthType {
  return credentials?.type ?? 'none';
}

export function sealCredentials(key: Buffer, credentials: GatewayCredentials): SealedCredentials {
  return {
    authType: credentials.type,
    authSecret: credentials.type === 'none' ? null : seal(key, JSON.stringify(credentials)),
  };
}

export function openCredentials(key: Buffer, sealed: SealedCredentials): GatewayCredentials {
  if (sealed.authType === 'none' || sealed.authSecret === null) return { type: 'none' };
  return JSON.parse(unseal(key, sealed.authSecret)) as GatewayCredentials;
}
