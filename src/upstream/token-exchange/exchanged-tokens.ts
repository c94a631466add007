import { createHash } from 'node:crypto';
import { KeyedSingleFlight } from '../../common/keyed-single-flight';
import { type TokenExchangeSettings } from '../upstream-credentials';
import { type IssuedToken, type TokenRequest } from './token-service-request';

/** Stop using a token this long before it expires (a quarter of a shorter lifetime). */
const EXPIRY_SKEW_MS = 30_000;
/** How long a token is used when the token service did not say when it expires. */
const UNKNOWN_LIFETIME_MS = 60_000;
/** Tokens held at most (callers × gateways); the oldest is forgotten first. */
const MAX_HELD = 10_000;

/** Who a token is for: a caller (its principal subject and its own token), or Portico itself. */
export type TokenFor = { subject: string; token: string } | 'portico';

/** Asks the token service once; throws an UpstreamFailure when it refuses or cannot be reached. */
export type TokenService = (
  settings: TokenExchangeSettings,
  request: TokenRequest,
) => Promise<IssuedToken>;

interface Held {
  accessToken: string;
  usableUntil: number;
}

/**
 * Tokens the token service issued, held by gateway and caller until shortly before they expire
 * (never past it), in this replica's memory only. Concurrent first calls for one key share one
 * exchange; a token the upstream refused is never handed out again. The caller's own token only
 * passes through, to the token service: nothing here keeps it.
 */
export class ExchangedTokens {
  private readonly held = new Map<string, Held>();
  private readonly flights = new KeyedSingleFlight<Held>();
  /** A digest of each gateway's settings, so that a changed one never serves an older token. */
  private readonly digests = new WeakMap<TokenExchangeSettings, string>();

  constructor(private readonly service: TokenService) {}

  /** A token for the upstream on behalf of `who`; `stale`: one the upstream just refused. */
  async get(
    gatewayId: string,
    settings: TokenExchangeSettings,
    who: TokenFor,
    stale?: string,
  ): Promise<string> {
    const key = `${gatewayId}\0${this.digest(settings)}\0${who === 'portico' ? '' : who.subject}`;
    const held = this.held.get(key);
    if (held && held.accessToken !== stale && Date.now() < held.usableUntil)
      return held.accessToken;
    if (held) this.held.delete(key);
    const task = () => this.obtain(gatewayId, key, settings, who);
    // A refused token must not come back from a run that started before the refusal.
    const obtained = await (stale === undefined
      ? this.flights.join(key, task)
      : this.flights.run(key, task));
    return obtained.accessToken;
  }

  private async obtain(
    gatewayId: string,
    key: string,
    settings: TokenExchangeSettings,
    who: TokenFor,
  ): Promise<Held> {
    const request: TokenRequest =
      who === 'portico'
        ? { kind: 'own' }
        : {
            kind: 'exchange',
            subjectToken: who.token,
            ...(settings.actor && settings.dialect === 'rfc8693'
              ? { actorToken: await this.get(gatewayId, settings, 'portico') }
              : {}),
          };
    const issued = await this.service(settings, request);
    const now = Date.now();
    const lifetime = issued.expiresAt === null ? UNKNOWN_LIFETIME_MS : issued.expiresAt - now;
    const held = {
      accessToken: issued.accessToken,
      usableUntil: now + lifetime - Math.min(EXPIRY_SKEW_MS, Math.max(0, lifetime / 4)),
    };
    if (this.held.size >= MAX_HELD) {
      const oldest = this.held.keys().next();
      if (!oldest.done) this.held.delete(oldest.value);
    }
    this.held.set(key, held);
    return held;
  }

  private digest(settings: TokenExchangeSettings): string {
    let digest = this.digests.get(settings);
    if (digest === undefined) {
      digest = createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
      this.digests.set(settings, digest);
    }
    return digest;
  }
}
