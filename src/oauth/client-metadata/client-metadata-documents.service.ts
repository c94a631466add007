import { Injectable } from '@nestjs/common';
import { type OAuthClientInformationFull } from '@modelcontextprotocol/server';
import { DataSource } from 'typeorm';
import { AuthSettings } from '../../config/slices/auth.settings';
import { ServerSettings } from '../../config/slices/server.settings';
import { OAuthError, OAuthErrorCode } from '../endpoints/oauth-error';
import { OAuthClient } from '../oauth-client.entity';
import { cacheLifetimeSeconds } from './cache-lifetime';
import { clientIdUrlProblem, parseClientMetadataDocument } from './client-metadata-document';
import { DocumentFetchError, fetchDocument } from './document-fetch';

/** Documents fetched at once by this replica; past it, requests for other documents wait outside. */
const MAX_FETCHES = 16;

function invalidClient(message: string): OAuthError {
  return new OAuthError(OAuthErrorCode.InvalidClient, message);
}

/**
 * Clients named by the https URL of their Client ID Metadata Document
 * (draft-ietf-oauth-client-id-metadata-document, the MCP authorization spec's first choice over
 * registration). The document is fetched when first used and again once its copy is stale (its
 * HTTP cache headers, within OAUTH_CLIENT_METADATA_MAX_CACHE_SECONDS). The copy is kept in
 * `oauth_client`, so that every replica shares it and grants reference the client like any other.
 * A document that cannot be fetched or is invalid is never kept (draft §5.2): the request fails
 * with `invalid_client`, saying why.
 */
@Injectable()
export class ClientMetadataDocuments {
  /** Fetches under way, by client id: concurrent requests of one client wait for the same one. */
  private readonly fetching = new Map<string, Promise<OAuthClientInformationFull>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly authSettings: AuthSettings,
    private readonly serverSettings: ServerSettings,
  ) {}

  get enabled(): boolean {
    return this.authSettings.clientMetadataDocuments.enabled;
  }

  /** The client its document describes: the fresh copy kept, or the document fetched now. */
  async client(clientId: string): Promise<OAuthClientInformationFull> {
    if (!this.enabled)
      throw invalidClient('Client ID Metadata Documents are not accepted by this server');
    const problem = clientIdUrlProblem(clientId);
    if (problem !== null) throw invalidClient(`The client_id URL ${problem}`);
    const kept = await this.dataSource.getRepository(OAuthClient).findOneBy({ clientId });
    if (kept?.documentExpiresAt && kept.documentExpiresAt.getTime() > Date.now())
      return { ...kept.metadata, client_id: clientId };
    const under = this.fetching.get(clientId);
    if (under) return under;
    if (this.fetching.size >= MAX_FETCHES)
      throw new OAuthError(
        OAuthErrorCode.TemporarilyUnavailable,
        'Too many client metadata documents are being fetched; try again shortly',
      );
    const fetched = this.fetchAndKeep(clientId).finally(() => this.fetching.delete(clientId));
    this.fetching.set(clientId, fetched);
    return fetched;
  }

  private async fetchAndKeep(clientId: string): Promise<OAuthClientInformationFull> {
    const settings = this.authSettings.clientMetadataDocuments;
    const fetched = await fetchDocument(new URL(clientId), settings).catch((error: unknown) => {
      if (error instanceof DocumentFetchError)
        throw invalidClient(`The client metadata document ${clientId} ${error.message}`);
      throw error;
    });
    const verdict = parseClientMetadataDocument(
      clientId,
      fetched.text,
      this.serverSettings.jsonMaxDepth,
    );
    if (!verdict.ok)
      throw invalidClient(`The client metadata document ${clientId} ${verdict.problem}`);
    const lifetime = cacheLifetimeSeconds(fetched.headers, settings.maxCacheSeconds);
    const { client_id: _clientId, ...metadata } = verdict.client;
    await this.dataSource.getRepository(OAuthClient).upsert(
      {
        clientId,
        metadata,
        clientSecret: null,
        clientSecretExpiresAt: null,
        documentExpiresAt: new Date(Date.now() + lifetime * 1000),
      },
      ['clientId'],
    );
    return verdict.client;
  }
}
