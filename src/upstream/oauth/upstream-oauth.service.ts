import { Injectable, Logger } from '@nestjs/common';
import {
  auth,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  type OAuthTokens,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { type EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../observability/metrics';
import { seal, unseal } from '../../common/secret-box';
import { type OAuthSettings } from '../../gateways/gateway.entity';
import { KeyedSingleFlight } from '../../common/keyed-single-flight';
import { MODERN_PROTOCOL_VERSION } from '../eras/protocol-era';
import { PORTICO_CLIENT } from '../upstream-connection';
import { UpstreamAuthorizationRequired, UpstreamFailure } from '../upstream-error';
import { StoredOAuthProvider, type StoredOAuthState } from './stored-oauth-provider';
import { UpstreamOAuthClient } from './upstream-oauth-client.entity';
import { SHARED_OWNER, UpstreamOAuthToken } from './upstream-oauth-token.entity';
import {
  type OAuthRecords,
  type OAuthTokenRecord,
  UpstreamOAuthStore,
} from './upstream-oauth.store';

/** Refresh this long before expiry at most (a quarter of a shorter lifetime otherwise). */
const REFRESH_AHEAD_MS = 60_000;
/** How long a replica trusts the token it holds before it reads the database again. */
const CACHE_MS = 30_000;
export const UPSTREAM_OAUTH_CALLBACK_PATH = '/admin/connections/callback';

/** The upstream an OAuth exchange is about. */
export interface OAuthUpstream {
  gatewayId: string;
  url: string;
  settings: OAuthSettings;
}

/** A started authorization: send the person to `authorizationUrl`, keep the rest for the return. */
export interface StartedAuthorization {
  authorizationUrl: string;
  codeVerifier: string;
}

/** One account's connection, as pages and the API show it (never a token). */
export interface OAuthConnectionState {
  owner: string;
  userId: string | null;
  connected: boolean;
  expiresAt: Date | null;
  refreshedAt: Date | null;
  refreshError: string | null;
}

/** What an upstream's refusal of a request without a token says (RFC 9728 §5.1, RFC 6750 §3). */
interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

interface HeldToken {
  accessToken: string;
  /** When to stop using it without asking again (refresh ahead, or re-read the database). */
  freshUntil: number;
}

/**
 * OAuth 2.1 towards upstream MCP servers with the SDK's `auth()`: discovery (RFC 9728, then RFC
 * 8414), dynamic client registration (RFC 7591) unless a client was registered beforehand, PKCE,
 * resource indicators (RFC 8707), refresh, and client credentials. Tokens are sealed in the
 * store, one record per gateway and owner (`shared`, or a user's id).
 *
 * Refreshes are single-flight: within a replica per key, and across replicas by the store's
 * exclusive work (on PostgreSQL a transaction-scoped advisory lock), under which the record is
 * read again, so a replica that waited uses the tokens the other just stored instead of spending
 * the (rotated) refresh token twice.
 */
@Injectable()
export class UpstreamOAuth {
  private readonly logger = new Logger(UpstreamOAuth.name);
  private readonly held = new Map<string, HeldToken>();
  private readonly flights = new KeyedSingleFlight<string>();
  /**
   * By gateway, the scopes its upstream asked for beyond a token's grant (403
   * `insufficient_scope`), with those granted before: the next authorization asks for all of them
   * (SEP-2350). Kept by this replica only; the error that sends a person to connect again names them.
   */
  private readonly wanted = new Map<string, string>();

  constructor(
    private readonly store: UpstreamOAuthStore,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  get callbackUrl(): string {
    return new URL(UPSTREAM_OAUTH_CALLBACK_PATH, this.config.publicUrl).href;
  }

  /** Where a person connects their account (or an operator the gateway's) to this upstream. */
  connectUrl(gatewayId: string): string {
    return new URL(`/admin/connections/${gatewayId}`, this.config.publicUrl).href;
  }

  /**
   * A usable access token of `owner` for the upstream, refreshed ahead of expiry. `stale`: the
   * token the upstream just refused, which is then never handed out again.
   */
  async accessToken(upstream: OAuthUpstream, owner: string, stale?: string): Promise<string> {
    const key = `${upstream.gatewayId}:${owner}`;
    const held = this.held.get(key);
    if (held && held.accessToken !== stale && Date.now() < held.freshUntil) return held.accessToken;
    const task = () => this.obtain(upstream, owner, key, stale);
    // A refused token must not come back from a run that started before the refusal: such a
    // caller waits for a run of its own (shared with others refused at the same time).
    return stale === undefined ? this.flights.join(key, task) : this.flights.run(key, task);
  }

  /**
   * Begins the authorization code flow (with PKCE) for `owner`. Discovery starts afresh, from
   * what the upstream answers a request without a token (where its metadata is, which scope it
   * wants): it may have moved to another authorization server since (SEP-2352).
   */
  async begin(upstream: OAuthUpstream, state: string): Promise<StartedAuthorization> {
    const challenge = await this.challenge(upstream);
    const provider = await this.provider(upstream, { state }, { rediscover: true });
    const result = await this.runAuth(upstream, provider, {
      scope: computeScopeUnion(
        upstream.settings.scope ?? challenge.scope,
        this.wanted.get(upstream.gatewayId),
      ),
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    });
    await this.keepClient(upstream, provider);
    if (result !== 'REDIRECT' || !provider.authorizationUrl || !provider.savedCodeVerifier)
      throw new UpstreamFailure('protocol', 'the provider did not start an authorization');
    return {
      authorizationUrl: provider.authorizationUrl.href,
      codeVerifier: provider.savedCodeVerifier,
    };
  }

  /** Exchanges the code the provider sent back, and stores the tokens of `owner`. */
  async finish(
    upstream: OAuthUpstream,
    owner: string,
    code: string,
    codeVerifier: string,
    /** The callback's `iss` (RFC 9207): the SDK refuses a code from another issuer. */
    iss?: string,
  ): Promise<void> {
    const provider = await this.provider(upstream, { codeVerifier });
    await this.runAuth(upstream, provider, { authorizationCode: code, iss });
    await this.keepClient(upstream, provider);
    if (!provider.savedTokens)
      throw new UpstreamFailure('protocol', 'the provider issued no tokens');
    await this.keepTokens(this.store, upstream.gatewayId, owner, provider.savedTokens);
    this.held.delete(`${upstream.gatewayId}:${owner}`);
  }

  /**
   * The upstream refused `owner`'s token as too narrow, asking for `scope`: the next
   * authorization asks for it on top of what was granted, and whoever called learns that the
   * account must connect again.
   */
  async tooNarrow(
    upstream: OAuthUpstream,
    owner: string,
    scope: string | undefined,
  ): Promise<UpstreamAuthorizationRequired> {
    const row = await this.store.token(upstream.gatewayId, owner);
    const granted = row?.tokens ? this.open(row.tokens)?.scope : undefined;
    const wanted = computeScopeUnion(this.wanted.get(upstream.gatewayId), granted, scope);
    if (wanted) this.wanted.set(upstream.gatewayId, wanted);
    return new UpstreamAuthorizationRequired(
      `The upstream asks for more access than the connected account granted${scope ? ` (scope "${scope}")` : ''}: connect again to grant it.`,
      this.connectUrl(upstream.gatewayId),
    );
  }

  /** Forgets the tokens of `owner` (Portico's side only: the provider's grant stays). */
  async disconnect(gatewayId: string, owner: string): Promise<boolean> {
    this.held.delete(`${gatewayId}:${owner}`);
    return this.store.deleteToken(gatewayId, owner);
  }

  /**
   * Forgets everything of the gateway's OAuth (tokens, registered client, discovery): its upstream
   * moved, or it no longer uses OAuth. Tokens are bound to the upstream they were issued for.
   */
  async forgetGateway(em: EntityManager, gatewayId: string): Promise<void> {
    for (const key of [...this.held.keys()])
      if (key.startsWith(`${gatewayId}:`)) this.held.delete(key);
    this.wanted.delete(gatewayId);
    await em.getRepository(UpstreamOAuthToken).delete({ gatewayId });
    await em.getRepository(UpstreamOAuthClient).delete({ gatewayId });
  }

  /** The connections of these gateways, by gateway. */
  async connections(gatewayIds: string[]): Promise<Map<string, OAuthConnectionState[]>> {
    const byGateway = new Map<string, OAuthConnectionState[]>();
    if (gatewayIds.length === 0) return byGateway;
    for (const row of await this.store.tokens(gatewayIds)) {
      const list = byGateway.get(row.gatewayId) ?? [];
      list.push(stateOf(row));
      byGateway.set(row.gatewayId, list);
    }
    return byGateway;
  }

  /** One account's connection to one gateway, or null when it never connected. */
  async connection(gatewayId: string, owner: string): Promise<OAuthConnectionState | null> {
    const row = await this.store.token(gatewayId, owner);
    return row ? stateOf(row) : null;
  }

  private async obtain(
    upstream: OAuthUpstream,
    owner: string,
    key: string,
    stale: string | undefined,
  ): Promise<string> {
    const outcome = await this.store.exclusive(key, (records) =>
      this.current(records, upstream, owner, stale),
    );
    // A failure is thrown only now, once what it recorded is committed.
    if (outcome instanceof UpstreamFailure) throw outcome;
    this.held.set(key, outcome);
    return outcome.accessToken;
  }

  /** The stored token if still good, else a refreshed (or, for client credentials, new) one. */
  private async current(
    records: OAuthRecords,
    upstream: OAuthUpstream,
    owner: string,
    stale: string | undefined,
  ): Promise<HeldToken | UpstreamFailure> {
    const row = await records.token(upstream.gatewayId, owner);
    const tokens = row?.tokens ? this.open(row.tokens) : undefined;
    if (row && tokens && tokens.access_token !== stale) {
      const refreshAt = refreshTime(row);
      if (refreshAt === null || Date.now() < refreshAt)
        return {
          accessToken: tokens.access_token,
          freshUntil: Math.min(refreshAt ?? Infinity, Date.now() + CACHE_MS),
        };
    }
    const machine = upstream.settings.mode === 'client-credentials';
    if (!machine && !tokens?.refresh_token) return this.notConnected(upstream, owner, row);
    const provider = await this.provider(upstream, { tokens: machine ? undefined : tokens });
    let result: 'AUTHORIZED' | 'REDIRECT';
    try {
      result = await this.runAuth(upstream, provider);
    } catch (error) {
      this.metrics.oauthRefreshes.inc({ outcome: 'failed' });
      const message = error instanceof Error ? error.message : String(error);
      await this.failed(
        records,
        upstream.gatewayId,
        owner,
        `The token could not be refreshed: ${message}`,
      );
      return new UpstreamFailure('authorization', `the token could not be refreshed: ${message}`);
    }
    await this.keepClient(upstream, provider, records);
    if (result === 'AUTHORIZED' && provider.savedTokens) {
      this.metrics.oauthRefreshes.inc({ outcome: 'ok' });
      const saved = await this.keepTokens(records, upstream.gatewayId, owner, provider.savedTokens);
      return {
        accessToken: provider.savedTokens.access_token,
        freshUntil: Math.min(refreshTime(saved) ?? Infinity, Date.now() + CACHE_MS),
      };
    }
    if (provider.tokensInvalidated) {
      this.metrics.oauthRefreshes.inc({ outcome: 'revoked' });
      const reason = 'The provider refused the refresh token: the grant was revoked or expired.';
      await this.failed(records, upstream.gatewayId, owner, reason, true);
      this.logger.warn(
        `OAuth grant of gateway ${upstream.gatewayId} (${ownerLabel(owner)}) is gone`,
      );
      return new UpstreamAuthorizationRequired(reason, this.connectUrl(upstream.gatewayId));
    }
    this.metrics.oauthRefreshes.inc({ outcome: 'failed' });
    const reason = 'The token could not be refreshed: the provider did not answer as expected.';
    await this.failed(records, upstream.gatewayId, owner, reason);
    return new UpstreamFailure('authorization', reason);
  }

  private notConnected(
    upstream: OAuthUpstream,
    owner: string,
    row: OAuthTokenRecord | null,
  ): UpstreamAuthorizationRequired {
    const why = row?.refreshError
      ? `${row.refreshError} Connect again.`
      : owner !== SHARED_OWNER
        ? 'You have not connected your account to this upstream yet.'
        : upstream.settings.mode === 'per-user'
          ? 'No account is connected to this upstream yet for its catalogue sync; an operator connects one on the gateway’s page (calls use each user’s own).'
          : 'No account is connected to this upstream yet.';
    return new UpstreamAuthorizationRequired(why, this.connectUrl(upstream.gatewayId));
  }

  private async runAuth(
    upstream: OAuthUpstream,
    provider: StoredOAuthProvider,
    {
      authorizationCode,
      iss,
      scope = upstream.settings.scope,
      resourceMetadataUrl,
    }: { authorizationCode?: string; iss?: string; scope?: string; resourceMetadataUrl?: URL } = {},
  ): Promise<'AUTHORIZED' | 'REDIRECT'> {
    const timeoutMs = this.config.upstreamTimeoutMs;
    return auth(provider, {
      serverUrl: upstream.url,
      ...(authorizationCode === undefined ? {} : { authorizationCode }),
      ...(iss === undefined ? {} : { iss }),
      ...(scope ? { scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      fetchFn: (input, init) =>
        fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) }),
    });
  }

  /**
   * What the upstream answers a request without a token: a 401 (or 403) whose challenge names
   * its protected resource metadata and the scope it wants. Nothing when it answers otherwise,
   * or cannot be reached: discovery then tries the well-known locations.
   */
  private async challenge(upstream: OAuthUpstream): Promise<Challenge> {
    let response: Response;
    try {
      response = await fetch(upstream.url, {
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
        signal: AbortSignal.timeout(this.config.upstreamTimeoutMs),
      });
    } catch {
      return {};
    }
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  }

  private async provider(
    upstream: OAuthUpstream,
    state: Omit<StoredOAuthState, 'client' | 'discovery'>,
    { rediscover = false }: { rediscover?: boolean } = {},
  ): Promise<StoredOAuthProvider> {
    const row = await this.store.client(upstream.gatewayId);
    const current = row && row.upstreamUrl === upstream.url ? row : null;
    return new StoredOAuthProvider(upstream.settings, this.callbackUrl, {
      ...state,
      client: current?.clientInformation
        ? (JSON.parse(unseal(this.config.encryptionKey, current.clientInformation)) as never)
        : undefined,
      discovery: rediscover ? undefined : ((current?.discovery as never) ?? undefined),
    });
  }

  /** Keeps what `auth()` registered or discovered, for the next run (on any replica). */
  private async keepClient(
    upstream: OAuthUpstream,
    provider: StoredOAuthProvider,
    records: OAuthRecords = this.store,
  ): Promise<void> {
    if (!provider.savedClient && !provider.savedDiscovery) return;
    const existing = await records.client(upstream.gatewayId);
    const sameUrl = existing?.upstreamUrl === upstream.url;
    await records.saveClient({
      gatewayId: upstream.gatewayId,
      upstreamUrl: upstream.url,
      clientInformation: provider.savedClient
        ? seal(this.config.encryptionKey, JSON.stringify(provider.savedClient))
        : sameUrl
          ? (existing?.clientInformation ?? null)
          : null,
      discovery:
        (provider.savedDiscovery as Record<string, unknown> | undefined) ??
        (sameUrl ? (existing?.discovery ?? null) : null),
    });
  }

  private async keepTokens(
    records: OAuthRecords,
    gatewayId: string,
    owner: string,
    tokens: OAuthTokens,
  ): Promise<OAuthTokenRecord> {
    const now = new Date();
    const record: OAuthTokenRecord = {
      gatewayId,
      owner,
      userId: owner === SHARED_OWNER ? null : owner,
      tokens: seal(this.config.encryptionKey, JSON.stringify(tokens)),
      expiresAt: tokens.expires_in ? new Date(now.getTime() + tokens.expires_in * 1000) : null,
      refreshedAt: now,
      refreshError: null,
    };
    await records.saveToken(record);
    return record;
  }

  /** Records a failed refresh; `drop`: the tokens are worthless now and are forgotten. */
  private async failed(
    records: OAuthRecords,
    gatewayId: string,
    owner: string,
    reason: string,
    drop = false,
  ): Promise<void> {
    this.held.delete(`${gatewayId}:${owner}`);
    await records.tokenFailed(gatewayId, owner, reason, drop);
  }

  private open(sealed: string): OAuthTokens | undefined {
    try {
      return JSON.parse(unseal(this.config.encryptionKey, sealed)) as OAuthTokens;
    } catch {
      return undefined;
    }
  }
}

/** When a stored token should be refreshed; null when its lifetime is unknown. */
function refreshTime(row: Pick<OAuthTokenRecord, 'expiresAt' | 'refreshedAt'>): number | null {
  if (!row.expiresAt) return null;
  const expires = row.expiresAt.getTime();
  const lifetime = expires - (row.refreshedAt?.getTime() ?? expires);
  return expires - Math.min(REFRESH_AHEAD_MS, Math.max(0, lifetime / 4));
}

function stateOf(row: OAuthTokenRecord): OAuthConnectionState {
  return {
    owner: row.owner,
    userId: row.userId,
    connected: row.tokens !== null,
    expiresAt: row.expiresAt,
    refreshedAt: row.refreshedAt,
    refreshError: row.refreshError,
  };
}

function ownerLabel(owner: string): string {
  return owner === SHARED_OWNER ? 'shared account' : `user ${owner}`;
}
