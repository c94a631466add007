import { Injectable } from '@nestjs/common';
import { computeScopeUnion } from '@modelcontextprotocol/client';
import { type EntityManager } from 'typeorm';
import { SecretSettings } from '../../config/slices/secrets.settings';
import { ServerSettings } from '../../config/slices/server.settings';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { Metrics } from '../../observability/metrics';
import { type OAuthSettings } from '../upstream-credentials';
import { type BearerSource } from '../transport/channel';
import { UpstreamAuthorizationRequired, UpstreamFailure } from '../upstream-error';
import { type UpstreamTarget } from '../upstream-target';
import { OAuthAccessTokens } from './oauth-access-tokens';
import { OAuthExchange, type OAuthUpstream } from './oauth-exchange';
import { UpstreamOAuthClient } from './upstream-oauth-client.entity';
import { SHARED_OWNER, UpstreamOAuthToken } from './upstream-oauth-token.entity';
import { type OAuthTokenRecord, UpstreamOAuthStore } from './upstream-oauth.store';

/** The tokens handed out that stay among the secrets cut out of failures. */
const MAX_REMEMBERED_TOKENS = 4;

/** A started authorization: send the person to `authorizationUrl`, keep the rest for the return. */
export interface StartedAuthorization {
  authorizationUrl: string;
  codeVerifier: string;
}

/** One account's connection, as pages and the API show it (never a token). */
export type OAuthConnectionState = Omit<OAuthTokenRecord, 'gatewayId' | 'tokens'> & {
  connected: boolean;
};

/**
 * OAuth 2.1 towards upstream MCP servers with the SDK's `auth()`: discovery (RFC 9728, then RFC
 * 8414), dynamic client registration (RFC 7591) unless a client was registered beforehand, PKCE,
 * resource indicators (RFC 8707), refresh, and client credentials. Tokens are sealed in the
 * store, one record per gateway and owner (`shared`, or a user's id); OAuthAccessTokens hands
 * them out.
 */
@Injectable()
export class UpstreamOAuth {
  private readonly exchange: OAuthExchange;
  private readonly tokens: OAuthAccessTokens;
  /**
   * By gateway, the scopes its upstream asked for beyond a token's grant (403
   * `insufficient_scope`), with those granted before: the next authorization asks for all of them
   * (SEP-2350). Kept by this replica only; the error that sends a person to connect again names them.
   */
  private readonly wanted = new Map<string, string>();

  constructor(
    private readonly store: UpstreamOAuthStore,
    private readonly config: ServerSettings,
    secrets: SecretSettings,
    upstream: UpstreamSettings,
    metrics: Metrics,
  ) {
    this.exchange = new OAuthExchange(store, secrets, config, upstream);
    this.tokens = new OAuthAccessTokens(store, this.exchange, metrics, (gatewayId) =>
      this.connectUrl(gatewayId),
    );
  }

  /** Where a person connects their account (or an operator the gateway's) to this upstream. */
  connectUrl(gatewayId: string): string {
    return new URL(`/admin/connections/${gatewayId}`, this.config.publicUrl).href;
  }

  /** See OAuthAccessTokens.get. */
  accessToken(upstream: OAuthUpstream, owner: string, stale?: string): Promise<string> {
    return this.tokens.get(upstream, owner, stale);
  }

  /**
   * The bearer of an OAuth upstream's connection: the gateway's connected account, or on a
   * per-user gateway the acting person's own. The first token is obtained here, so that a caller
   * who has none learns it (with the link to connect) before anything is sent upstream. Each
   * token handed out joins `secrets`, to be cut out of failures as fixed credentials are.
   */
  async bearer(
    { gatewayId, endpoint }: UpstreamTarget,
    settings: OAuthSettings,
    actingFor: { userId: string | null } | undefined,
    secrets: string[],
  ): Promise<BearerSource> {
    let owner = SHARED_OWNER;
    if (settings.mode === 'per-user' && actingFor) {
      if (actingFor.userId === null)
        throw new UpstreamAuthorizationRequired(
          'Each user calls this upstream with their own account, and this credential belongs to no Portico user.',
          null,
        );
      owner = actingFor.userId;
    }
    if (endpoint.url === null) throw new UpstreamFailure('unreachable', 'the gateway has no URL');
    const upstream = { gatewayId, url: endpoint.url, settings };
    const source: BearerSource = {
      token: async (stale) => {
        const token = await this.accessToken(upstream, owner, stale);
        if (!secrets.includes(token)) secrets.push(token);
        if (secrets.length > MAX_REMEMBERED_TOKENS) secrets.splice(0, 1);
        return token;
      },
      tooNarrow: (scope) => this.tooNarrow(upstream, owner, scope),
    };
    await source.token();
    return source;
  }

  /**
   * Begins the authorization code flow (with PKCE) for `owner`. Discovery starts afresh, from
   * what the upstream answers a request without a token (where its metadata is, which scope it
   * wants): it may have moved to another authorization server since (SEP-2352).
   */
  async begin(upstream: OAuthUpstream, state: string): Promise<StartedAuthorization> {
    const challenge = await this.exchange.challenge(upstream);
    const provider = await this.exchange.provider(upstream, { state }, { rediscover: true });
    const result = await this.exchange.run(upstream, provider, {
      scope: computeScopeUnion(
        upstream.settings.scope ?? challenge.scope,
        this.wanted.get(upstream.gatewayId),
      ),
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    });
    await this.exchange.keepClient(upstream, provider);
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
    const provider = await this.exchange.provider(upstream, { codeVerifier });
    await this.exchange.run(upstream, provider, { authorizationCode: code, iss });
    await this.exchange.keepClient(upstream, provider);
    if (!provider.savedTokens)
      throw new UpstreamFailure('protocol', 'the provider issued no tokens');
    await this.exchange.keepTokens(
      this.store.records,
      upstream.gatewayId,
      owner,
      provider.savedTokens,
    );
    this.tokens.drop(upstream.gatewayId, owner);
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
    const row = await this.store.records.token(upstream.gatewayId, owner);
    const granted = row?.tokens ? this.exchange.tokensOf(row.tokens)?.scope : undefined;
    const wanted = computeScopeUnion(this.wanted.get(upstream.gatewayId), granted, scope);
    if (wanted) this.wanted.set(upstream.gatewayId, wanted);
    return new UpstreamAuthorizationRequired(
      `The upstream asks for more access than the connected account granted${scope ? ` (scope "${scope}")` : ''}: connect again to grant it.`,
      this.connectUrl(upstream.gatewayId),
    );
  }

  /** Forgets the tokens of `owner` (Portico's side only: the provider's grant stays). */
  async disconnect(gatewayId: string, owner: string): Promise<boolean> {
    this.tokens.drop(gatewayId, owner);
    return this.store.records.deleteToken(gatewayId, owner);
  }

  /**
   * Forgets everything of the gateway's OAuth (tokens, registered client, discovery): its upstream
   * moved, or it no longer uses OAuth. Tokens are bound to the upstream they were issued for.
   */
  async forgetGateway(em: EntityManager, gatewayId: string): Promise<void> {
    this.tokens.drop(gatewayId);
    this.wanted.delete(gatewayId);
    await em.getRepository(UpstreamOAuthToken).delete({ gatewayId });
    await em.getRepository(UpstreamOAuthClient).delete({ gatewayId });
  }

  /** The connections of these gateways, by gateway. */
  async connections(gatewayIds: string[]): Promise<Map<string, OAuthConnectionState[]>> {
    const byGateway = new Map<string, OAuthConnectionState[]>();
    if (gatewayIds.length === 0) return byGateway;
    for (const row of await this.store.records.tokens(gatewayIds)) {
      const list = byGateway.get(row.gatewayId) ?? [];
      list.push(stateOf(row));
      byGateway.set(row.gatewayId, list);
    }
    return byGateway;
  }

  /** One account's connection to one gateway, or null when it never connected. */
  async connection(gatewayId: string, owner: string): Promise<OAuthConnectionState | null> {
    const row = await this.store.records.token(gatewayId, owner);
    return row ? stateOf(row) : null;
  }
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
