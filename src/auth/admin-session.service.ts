import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type CookieOptions, type Request, type Response } from 'express';
import { AuthSettings } from '../config/slices/auth.settings';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { parseCookies } from '../common/cookie-header';
import { deriveKey, mac, macEquals, signValue, verifyValue } from '../common/signed-value';

export const SESSION_COOKIE = 'portico_session';
export const LOGIN_COOKIE = 'portico_login';
const LOGIN_NONCE_SECONDS = 3600;

/** A signed-in user of the admin pages, as read from the session cookie. */
export interface AdminSession {
  userId: string;
  /** Random per login; CSRF tokens are bound to it. */
  sid: string;
  expiresAt: Date;
}

interface SessionClaims {
  sub: string;
  sid: string;
  exp: number;
}

declare module 'express' {
  interface Request {
    adminSession?: AdminSession;
  }
}

/**
 * Stateless admin sessions: an HMAC-signed cookie with an expiry, keyed from JWT_SECRET, so every
 * replica with the same secret accepts it and no session store is needed. CSRF tokens are an HMAC
 * of the session id (or, before login, of a random nonce cookie) under a separate key.
 */
@Injectable()
export class AdminSessionService {
  private readonly sessionKey: Buffer;
  private readonly csrfKey: Buffer;

  constructor(
    private readonly authSettings: AuthSettings,
    secrets: SecretSettings,
    private readonly serverSettings: ServerSettings,
  ) {
    this.sessionKey = deriveKey(secrets.jwtSecret, 'admin-session');
    this.csrfKey = deriveKey(secrets.jwtSecret, 'admin-csrf');
  }

  start(request: Request, response: Response, userId: string, now = Date.now()): AdminSession {
    const ttl = this.authSettings.tokenTtlSeconds;
    const claims: SessionClaims = {
      sub: userId,
      sid: randomBytes(16).toString('base64url'),
      exp: Math.floor(now / 1000) + ttl,
    };
    response.cookie(SESSION_COOKIE, signValue(this.sessionKey, claims), {
      ...cookieOptions(this.serverSettings, request, '/'),
      maxAge: ttl * 1000,
    });
    response.clearCookie(LOGIN_COOKIE, cookieOptions(this.serverSettings, request, '/admin'));
    return { userId, sid: claims.sid, expiresAt: new Date(claims.exp * 1000) };
  }

  /**
   * The session the request carries, if it is authentic and unexpired. Whether its user may still
   * sign in (exists, not disabled) is the AuthGuard's to check, on every request.
   */
  read(request: Request, now = Date.now()): AdminSession | null {
    const value = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (!value) return null;
    const claims = verifyValue(this.sessionKey, value) as Partial<SessionClaims> | null;
    if (
      typeof claims?.sub !== 'string' ||
      typeof claims.sid !== 'string' ||
      typeof claims.exp !== 'number' ||
      claims.exp * 1000 <= now
    ) {
      return null;
    }
    return { userId: claims.sub, sid: claims.sid, expiresAt: new Date(claims.exp * 1000) };
  }

  end(request: Request, response: Response): void {
    response.clearCookie(SESSION_COOKIE, cookieOptions(this.serverSettings, request, '/'));
  }

  /** The nonce that login-form CSRF tokens are bound to; set as a cookie when missing. */
  loginNonce(request: Request, response: Response): string {
    const existing = this.existingLoginNonce(request);
    if (existing) return existing;
    const nonce = randomBytes(16).toString('base64url');
    response.cookie(LOGIN_COOKIE, nonce, {
      ...cookieOptions(this.serverSettings, request, '/admin'),
      maxAge: LOGIN_NONCE_SECONDS * 1000,
    });
    return nonce;
  }

  existingLoginNonce(request: Request): string | null {
    const nonce = parseCookies(request.headers.cookie).get(LOGIN_COOKIE);
    return nonce && /^[A-Za-z0-9_-]{16,64}$/.test(nonce) ? nonce : null;
  }

  csrfToken(seed: string): string {
    return mac(this.csrfKey, seed);
  }

  csrfValid(seed: string, token: unknown): boolean {
    return typeof token === 'string' && macEquals(this.csrfToken(seed), token);
  }
}

/**
 * httpOnly, SameSite=Strict, and Secure whenever clients reach Portico over https (PUBLIC_URL) or
 * the request came over TLS (directly or through a trusted proxy): a proxy that ends TLS and is
 * not listed in TRUSTED_PROXIES still gets a Secure cookie.
 */
export function cookieOptions(
  config: ServerSettings,
  request: Request,
  path: string,
): CookieOptions {
  const secure = request.secure || config.publicUrl.startsWith('https:');
  return { httpOnly: true, sameSite: 'strict', secure, path };
}
