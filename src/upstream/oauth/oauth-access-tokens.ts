import { Logger } from '@nestjs/common';
import { type Metrics } from '../../observability/metrics';
import { KeyedSingleFlight } from '../../common/keyed-single-flight';
import { UpstreamAuthorizationRequired, UpstreamFailure } from '../upstream-error';
import { type OAuthExchange, type OAuthUpstream } from './oauth-exchange';
import { SHARED_OWNER } from './upstream-oauth-token.entity';
import {
  type OAuthRecords,
  type OAuthTokenRecord,
  tokenKey,
  type UpstreamOAuthStore,
} from './upstream-oauth.store';
import { errorMessage } from '../../common/error-message';

/** Refresh this long before expiry at most (a quarter of a shorter lifetime otherwise). */
const REFRESH_AHEAD_MS = 60_000;
/** How long a replica trusts the token it holds before it reads the database again. */
const CACHE_MS = 30_000;

interface HeldToken {
  accessToken: string;
  /** When to stop using it without asking again (refresh ahead, or re-read the database). */
  freshUntil: number;
}

/**
 * The access tokens Portico sends to OAuth upstreams: the one this replica holds while fresh,
 * else the stored one until its refresh is due, else a refreshed one (for client credentials, a
 * new one). Refreshes are single-flight: within a replica per key, and across replicas by the
 * store's exclusive work (on PostgreSQL a transaction-scoped advisory lock), under which the
 * record is read again, so a replica that waited uses the tokens the other just stored instead of
 * spending the (rotated) refresh token twice.
 */
export class OAuthAccessTokens {
  private readonly logger = new Logger(OAuthAccessTokens.name);
  private readonly held = new Map<string, HeldToken>();
  private readonly flights = new KeyedSingleFlight<string>();

  constructor(
    private readonly store: UpstreamOAuthStore,
    private readonly exchange: OAuthExchange,
    private readonly metrics: Metrics,
    /** Where the account connects again when no token can be had. */
    private readonly connectUrl: (gatewayId: string) => string,
  ) {}

  /**
   * A usable access token of `owner` for the upstream, refreshed ahead of expiry. `stale`: the
   * token the upstream just refused, which is then never handed out again.
   */
  async get(upstream: OAuthUpstream, owner: string, stale?: string): Promise<string> {
    const key = tokenKey(upstream.gatewayId, owner);
    const held = this.held.get(key);
    if (held && held.accessToken !== stale && Date.now() < held.freshUntil) return held.accessToken;
    const task = () => this.obtain(upstream, owner, key, stale);
    // A refused token must not come back from a run that started before the refusal: such a
    // caller waits for a run of its own (shared with others refused at the same time).
    return stale === undefined ? this.flights.join(key, task) : this.flights.run(key, task);
  }

  /** Stops handing out the token this replica holds of `owner`, or of every owner of the gateway. */
  drop(gatewayId: string, owner?: string): void {
    if (owner !== undefined) this.held.delete(tokenKey(gatewayId, owner));
    else
      for (const key of [...this.held.keys()])
        if (key.startsWith(tokenKey(gatewayId, ''))) this.held.delete(key);
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
    const tokens = row?.tokens ? this.exchange.tokensOf(row.tokens) : undefined;
    if (row && tokens && tokens.access_token !== stale) {
      const refreshAt = refreshTime(row);
      if (refreshAt === null || Date.now() < refreshAt) return heldToken(tokens.access_token, row);
    }
    const machine = upstream.settings.mode === 'client-credentials';
    if (!machine && !tokens?.refresh_token) return this.notConnected(upstream, owner, row);
    const provider = await this.exchange.provider(upstream, {
      tokens: machine ? undefined : tokens,
    });
    let result: 'AUTHORIZED' | 'REDIRECT';
    try {
      result = await this.exchange.run(upstream, provider);
    } catch (error) {
      const message = errorMessage(error);
      await this.refreshFailed(
        records,
        upstream,
        owner,
        `The token could not be refreshed: ${message}`,
      );
      return new UpstreamFailure('authorization', `the token could not be refreshed: ${message}`);
    }
    await this.exchange.keepClient(upstream, provider, records);
    if (result === 'AUTHORIZED' && provider.savedTokens) {
      this.metrics.oauthRefreshes.inc({ outcome: 'ok' });
      const { gatewayId } = upstream;
      const saved = await this.exchange.keepTokens(records, gatewayId, owner, provider.savedTokens);
      return heldToken(provider.savedTokens.access_token, saved);
    }
    if (provider.tokensInvalidated) {
      const reason = 'The provider refused the refresh token: the grant was revoked or expired.';
      await this.refreshFailed(records, upstream, owner, reason, true);
      this.logger.warn(
        `OAuth grant of gateway ${upstream.gatewayId} (${ownerLabel(owner)}) is gone`,
      );
      return new UpstreamAuthorizationRequired(reason, this.connectUrl(upstream.gatewayId));
    }
    const reason = 'The token could not be refreshed: the provider did not answer as expected.';
    await this.refreshFailed(records, upstream, owner, reason);
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

  /** Records a failed refresh; `drop`: the provider revoked the grant, and the tokens are gone. */
  private async refreshFailed(
    records: OAuthRecords,
    { gatewayId }: OAuthUpstream,
    owner: string,
    reason: string,
    drop = false,
  ): Promise<void> {
    this.metrics.oauthRefreshes.inc({ outcome: drop ? 'revoked' : 'failed' });
    this.drop(gatewayId, owner);
    await records.tokenFailed(gatewayId, owner, reason, drop);
  }
}

/** A token to hand out until its refresh is due, or the cache's time is up. */
function heldToken(
  accessToken: string,
  row: Pick<OAuthTokenRecord, 'expiresAt' | 'refreshedAt'>,
): HeldToken {
  return {
    accessToken,
    freshUntil: Math.min(refreshTime(row) ?? Infinity, Date.now() + CACHE_MS),
  };
}

/** When a stored token should be refreshed; null when its lifetime is unknown. */
function refreshTime(row: Pick<OAuthTokenRecord, 'expiresAt' | 'refreshedAt'>): number | null {
  if (!row.expiresAt) return null;
  const expires = row.expiresAt.getTime();
  const lifetime = expires - (row.refreshedAt?.getTime() ?? expires);
  return expires - Math.min(REFRESH_AHEAD_MS, Math.max(0, lifetime / 4));
}

function ownerLabel(owner: string): string {
  return owner === SHARED_OWNER ? 'shared account' : `user ${owner}`;
}
