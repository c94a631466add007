import {
  auth,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  extractWWWAuthenticateParams,
  type OAuthTokens,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { type SecretSettings } from '../../config/slices/secrets.settings';
import { type ServerSettings } from '../../config/slices/server.settings';
import { type UpstreamSettings } from '../../config/slices/upstream.settings';
import { boundedFetch } from '../../common/remote-body';
import { seal, unseal } from '../../common/secret-box';
import { type OAuthSettings } from '../upstream-credentials';
import { MODERN_PROTOCOL_VERSION } from '../eras/protocol-era';
import { PORTICO_CLIENT } from '../upstream-connection';
import { StoredOAuthProvider, type StoredOAuthState } from './stored-oauth-provider';
import {
  type OAuthRecords,
  type OAuthTokenRecord,
  type UpstreamOAuthStore,
  userIdOf,
} from './upstream-oauth.store';

export const UPSTREAM_OAUTH_CALLBACK_PATH = '/admin/connections/callback';

/** fetch, each answer of an authorization server (metadata, registration, tokens) to 1 MiB. */
const boundedToDocument = boundedFetch(1024 * 1024);

/** The upstream an OAuth exchange is about. */
export interface OAuthUpstream {
  gatewayId: string;
  url: string;
  settings: OAuthSettings;
}

/** What an upstream's refusal of a request without a token says (RFC 9728 §5.1, RFC 6750 §3). */
export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * One run of the SDK's `auth()` against an upstream's authorization server, and what it leaves.
 * The provider starts from what is stored (the client registered dynamically, sealed, and the
 * discovery, both kept while the upstream's URL stays); what a run registers, discovers or is
 * issued is sealed into the records for the next run, on any replica.
 */
export class OAuthExchange {
  constructor(
    private readonly store: UpstreamOAuthStore,
    private readonly secrets: SecretSettings,
    private readonly serverSettings: ServerSettings,
    private readonly upstreamSettings: UpstreamSettings,
  ) {}

  /**
   * What the upstream answers a request without a token: a 401 (or 403) whose challenge names
   * its protected resource metadata and the scope it wants. Nothing when it answers otherwise,
   * or cannot be reached: discovery then tries the well-known locations.
   */
  async challenge(upstream: OAuthUpstream): Promise<Challenge> {
    const response = await fetch(upstream.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            [PROTOCOL_VERSION_META_KEY]: MODERN_PROTOCOL_VERSION,
            [CLIENT_CAPABILITIES_META_KEY]: {},
            [CLIENT_INFO_META_KEY]: PORTICO_CLIENT,
          },
        },
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(this.upstreamSettings.upstreamTimeoutMs),
    }).catch(() => null);
    if (!response) return {};
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  }

  /** A provider over what is stored for the upstream; `rediscover` leaves the discovery out. */
  async provider(
    upstream: OAuthUpstream,
    state: Omit<StoredOAuthState, 'client' | 'discovery'>,
    { rediscover = false }: { rediscover?: boolean } = {},
  ): Promise<StoredOAuthProvider> {
    const row = await this.store.records.client(upstream.gatewayId);
    const current = row && row.upstreamUrl === upstream.url ? row : null;
    const callbackUrl = new URL(UPSTREAM_OAUTH_CALLBACK_PATH, this.serverSettings.publicUrl).href;
    return new StoredOAuthProvider(upstream.settings, callbackUrl, {
      ...state,
      client: current?.clientInformation
        ? (this.opened(current.clientInformation) as never)
        : undefined,
      discovery: rediscover ? undefined : ((current?.discovery as never) ?? undefined),
    });
  }

  /**
   * Runs `auth()` with the provider, each of its requests bounded by the upstream timeout and each
   * answer by its size (boundedToDocument).
   */
  async run(
    upstream: OAuthUpstream,
    provider: StoredOAuthProvider,
    {
      authorizationCode,
      iss,
      scope = upstream.settings.scope,
      resourceMetadataUrl,
    }: { authorizationCode?: string; iss?: string; scope?: string; resourceMetadataUrl?: URL } = {},
  ): Promise<'AUTHORIZED' | 'REDIRECT'> {
    const timeoutMs = this.upstreamSettings.upstreamTimeoutMs;
    return auth(provider, {
      serverUrl: upstream.url,
      ...(authorizationCode === undefined ? {} : { authorizationCode }),
      ...(iss === undefined ? {} : { iss }),
      ...(scope ? { scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      fetchFn: (input, init) =>
        boundedToDocument(input, {
          ...init,
          signal: init?.signal ?? AbortSignal.timeout(timeoutMs),
        }),
    });
  }

  /** Keeps what `auth()` registered or discovered, for the next run (on any replica). */
  async keepClient(
    upstream: OAuthUpstream,
    provider: StoredOAuthProvider,
    records: OAuthRecords = this.store.records,
  ): Promise<void> {
    if (!provider.savedClient && !provider.savedDiscovery) return;
    const existing = await records.client(upstream.gatewayId);
    const sameUrl = existing?.upstreamUrl === upstream.url;
    await records.saveClient({
      gatewayId: upstream.gatewayId,
      upstreamUrl: upstream.url,
      clientInformation: provider.savedClient
        ? this.sealed(provider.savedClient)
        : sameUrl
          ? (existing?.clientInformation ?? null)
          : null,
      discovery:
        (provider.savedDiscovery as Record<string, unknown> | undefined) ??
        (sameUrl ? (existing?.discovery ?? null) : null),
    });
  }

  /** Keeps the tokens `owner` was issued, sealed, and when they expire. */
  async keepTokens(
    records: OAuthRecords,
    gatewayId: string,
    owner: string,
    tokens: OAuthTokens,
  ): Promise<OAuthTokenRecord> {
    const now = new Date();
    const record: OAuthTokenRecord = {
      gatewayId,
      owner,
      userId: userIdOf(owner),
      tokens: this.sealed(tokens),
      expiresAt: expiryOf(tokens.expires_in, now),
      refreshedAt: now,
      refreshError: null,
    };
    await records.saveToken(record);
    return record;
  }

  /** The tokens a record holds; none when they cannot be opened. */
  tokensOf(sealed: string): OAuthTokens | undefined {
    try {
      return this.opened(sealed) as OAuthTokens;
    } catch {
      return undefined;
    }
  }

  private sealed(value: unknown): string {
    return seal(this.secrets.encryptionKey, JSON.stringify(value));
  }

  private opened(sealed: string): unknown {
    return JSON.parse(unseal(this.secrets.encryptionKey, sealed));
  }
}

/**
 * When tokens that live `seconds` from `now` expire; null when the provider said nothing usable,
 * or a lifetime no date can hold (a hostile provider's, which would fail the write of the tokens).
 */
function expiryOf(seconds: number | undefined, now: Date): Date | null {
  if (typeof seconds !== 'number' || !(seconds > 0)) return null;
  const at = new Date(now.getTime() + seconds * 1000);
  return Number.isNaN(at.getTime()) ? null : at;
}
