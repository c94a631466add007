import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { randomBytes, randomUUID } from 'node:crypto';
import { type Request, type Response } from 'express';
import { type OAuthClientsStore } from '../oauth-clients.store';
import { OAuthError, OAuthErrorCode } from './oauth-error';

/** A confidential client's secret lasts this long; it then registers again. */
const CLIENT_SECRET_SECONDS = 30 * 24 * 3600;

/** OpenID Connect Registration §2, which the MCP authorization spec asks clients to send. */
const APPLICATION_TYPES = new Set(['web', 'native']);

/**
 * POST /oauth/register: RFC 7591 dynamic client registration. A client that authenticates with
 * `none` is public; any other gets a secret. The store refuses what Portico cannot serve.
 */
export function registerEndpoint(clients: OAuthClientsStore) {
  return async (request: Request, response: Response): Promise<void> => {
    const parsed = OAuthClientMetadataSchema.safeParse(request.body);
    if (!parsed.success)
      throw new OAuthError(OAuthErrorCode.InvalidClientMetadata, parsed.error.message);
    const metadata = parsed.data;
    if (
      metadata.application_type !== undefined &&
      !APPLICATION_TYPES.has(metadata.application_type)
    )
      throw new OAuthError(
        OAuthErrorCode.InvalidClientMetadata,
        'application_type must be web or native',
      );
    const issuedAt = Math.floor(Date.now() / 1000);
    const isPublic = metadata.token_endpoint_auth_method === 'none';
    const client: OAuthClientInformationFull = {
      ...metadata,
      client_id: randomUUID(),
      client_id_issued_at: issuedAt,
      ...(isPublic
        ? {}
        : {
            client_secret: randomBytes(32).toString('hex'),
            client_secret_expires_at: issuedAt + CLIENT_SECRET_SECONDS,
          }),
    };
    response.status(201).json(await clients.registerClient(client));
  };
}
