import { Injectable } from '@nestjs/common';
import {
  type OAuthClientInformationFull,
  type OAuthClientMetadata,
} from '@modelcontextprotocol/server';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { seal, unseal } from '../common/secret-box';
import { AppConfig } from '../config/app-config';
import { OAuthError, OAuthErrorCode } from './endpoints/oauth-error';
import { OAuthClient } from './oauth-client.entity';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemes a redirect must never use: they run or read something in the browser itself. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'blob:',
  'vbscript:',
  'about:',
]);

/**
 * Why a redirect URI is refused, or null: https anywhere, http only to loopback (RFC 8252 native
 * apps), or a private-use scheme of a native app; never a fragment.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not a URL`;
  }
  if (url.hash !== '') return `${uri} has a fragment`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${uri} uses a scheme that is not allowed`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    return `${uri} must use https (http only to localhost)`;
  return null;
}

/** Clients registered through RFC 7591 dynamic registration; secrets sealed at rest. */
@Injectable()
export class OAuthClientsStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (!isUUID(clientId)) return undefined;
    const row = await this.dataSource.getRepository(OAuthClient).findOneBy({ clientId });
    if (!row) return undefined;
    return {
      ...row.metadata,
      client_id: row.clientId,
      client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
      ...(row.clientSecret === null
        ? {}
        : {
            client_secret: unseal(this.config.encryptionKey, row.clientSecret),
            client_secret_expires_at: row.clientSecretExpiresAt
              ? Math.floor(row.clientSecretExpiresAt.getTime() / 1000)
              : 0,
          }),
    };
  }

  /** Stores a registration, once its redirect URIs and grant types are ones Portico serves. */
  async registerClient(client: OAuthClientInformationFull): Promise<OAuthClientInformationFull> {
    const problems = client.redirect_uris.map(redirectUriProblem).filter((p) => p !== null);
    if (client.redirect_uris.length === 0 || problems.length > 0)
      throw new OAuthError(
        OAuthErrorCode.InvalidRedirectUri,
        problems[0] ?? 'redirect_uris must not be empty',
      );
    const grants = client.grant_types ?? ['authorization_code', 'refresh_token'];
    if (grants.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token'))
      throw new OAuthError(
        OAuthErrorCode.InvalidClientMetadata,
        'only authorization_code and refresh_token are supported',
      );
    const {
      client_id: clientId,
      client_id_issued_at: _issuedAt,
      client_secret: secret,
      client_secret_expires_at: secretExpiresAt,
      ...metadata
    } = client;
    await this.dataSource.getRepository(OAuthClient).insert({
      clientId,
      metadata: metadata as OAuthClientMetadata,
      clientSecret: secret ? seal(this.config.encryptionKey, secret) : null,
      clientSecretExpiresAt: secretExpiresAt ? new Date(secretExpiresAt * 1000) : null,
    });
    return client;
  }
}
