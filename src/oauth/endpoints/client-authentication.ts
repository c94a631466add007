import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { timingSafeEqual } from 'node:crypto';
import { type OAuthClientsStore } from '../oauth-clients.store';
import { OAuthError, OAuthErrorCode } from './oauth-error';
import { type OAuthParams, optionalParam, requiredParam } from './oauth-params';

/**
 * The client of a token or revocation request (`none` or `client_secret_post`, as the metadata
 * says): a confidential client must send its unexpired secret; a public client is known by its id.
 */
export async function authenticateClient(
  clients: OAuthClientsStore,
  params: OAuthParams,
): Promise<OAuthClientInformationFull> {
  const clientId = requiredParam(params, 'client_id');
  const secret = optionalParam(params, 'client_secret');
  const client = await clients.getClient(clientId);
  if (!client) throw new OAuthError(OAuthErrorCode.InvalidClient, 'Invalid client_id');
  if (client.client_secret) {
    if (!secret) throw new OAuthError(OAuthErrorCode.InvalidClient, 'Client secret is required');
    if (!sameSecret(secret, client.client_secret))
      throw new OAuthError(OAuthErrorCode.InvalidClient, 'Invalid client_secret');
    const expiresAt = client.client_secret_expires_at;
    if (expiresAt && expiresAt < Math.floor(Date.now() / 1000))
      throw new OAuthError(OAuthErrorCode.InvalidClient, 'Client secret has expired');
  }
  return client;
}

/** Compared in constant time, so that the answer's timing tells nothing about the secret. */
function sameSecret(given: string, stored: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
