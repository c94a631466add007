import { Injectable } from '@nestjs/common';
import {
  type OAuthClientInformationFull,
  type OAuthClientMetadata,
} from '@modelcontextprotocol/server';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { seal, unseal } from '../common/secret-box';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ClientMetadataDocuments } from './client-metadata/client-metadata-documents.service';
import { isClientIdUrl } from './client-metadata/client-metadata-document';
import { OAuthError, OAuthErrorCode } from './endpoints/oauth-error';
import { OAuthClient } from './oauth-client.entity';
import { redirectUriProblem } from './redirect-uri';

/**
 * The authorization server's clients: registered through RFC 7591 dynamic registration (secrets
 * sealed at rest), or named by the URL of their Client ID Metadata Document.
 */
@Injectable()
export class OAuthClientsStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: SecretSettings,
    readonly documents: ClientMetadataDocuments,
  ) {}

  /**
   * The client of a client_id, or undefined for an unknown one. A metadata document's client that
   * cannot be used (not fetched, invalid) is an `invalid_client` OAuthError saying why.
   */
  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (isClientIdUrl(clientId)) return this.documents.client(clientId);
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
