import { randomUUID } from 'node:crypto';
import { deriveKey, signValue, verifyValue } from '../common/signed-value';

/** What an authorization request asked for, carried to the consent page and back. */
export interface AuthorizationRequest {
  /** Names this request, so that it is answered with a code once (the consent is single-use). */
  id: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  scope: string;
  resource: string;
}

/** Long enough to sign in (with SSO, too) and decide; short enough that a stale link dies. */
const LIFETIME_SECONDS = 15 * 60;

/**
 * The pending request, signed, as the `request` query parameter of the consent page: no server
 * state is kept between /oauth/authorize and the decision, so any replica can serve either.
 */
export class AuthorizationRequests {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = deriveKey(secret, 'oauth-authorization-request');
  }

  seal(request: Omit<AuthorizationRequest, 'id'>, now = Date.now()): string {
    return signValue(this.key, {
      ...request,
      id: randomUUID(),
      exp: Math.floor(now / 1000) + LIFETIME_SECONDS,
    });
  }

  /** The request, or null when it was not made here, was altered or has expired. */
  open(value: unknown, now = Date.now()): AuthorizationRequest | null {
    if (typeof value !== 'string' || value.length > 8192) return null;
    const payload = verifyValue(this.key, value) as Partial<
      AuthorizationRequest & { exp: number }
    > | null;
    if (
      !payload ||
      typeof payload.exp !== 'number' ||
      payload.exp * 1000 <= now ||
      typeof payload.id !== 'string' ||
      typeof payload.clientId !== 'string' ||
      typeof payload.redirectUri !== 'string' ||
      typeof payload.codeChallenge !== 'string' ||
      typeof payload.scope !== 'string' ||
      typeof payload.resource !== 'string' ||
      (payload.state !== null && typeof payload.state !== 'string')
    ) {
      return null;
    }
    return {
      id: payload.id,
      clientId: payload.clientId,
      redirectUri: payload.redirectUri,
      codeChallenge: payload.codeChallenge,
      state: payload.state ?? null,
      scope: payload.scope,
      resource: payload.resource,
    };
  }
}
