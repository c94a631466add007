import { type GatewayAuthType } from './gateway.entity';

/** Decrypted upstream credentials; only the upstream client ever sees them. */
export type GatewayCredentials =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'headers'; headers: Record<string, string> };

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

export function credentialsType(credentials: GatewayCredentials | undefined): GatewayAuthType {
  return credentials?.type ?? 'none';
}
