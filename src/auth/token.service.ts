import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AuthSettings } from '../config/slices/auth.settings';
import { SecretSettings } from '../config/slices/secrets.settings';
import { AuthErrorCode, AuthException } from './auth.exception';
import { Memo } from '../common/memo';

/** Claims of the tokens POST /api/v1/auth/token issues: a user, for a while. */
interface LoginClaims {
  sub: string;
  typ: 'login';
  exp: number;
}

/** Claims of tokens issued before users existed; they keep working until they expire. */
interface LegacyClaims {
  sub: string;
  scope: 'admin' | 'server';
  srv?: unknown;
  exp: number;
}

/** What a verified signed token says; the PrincipalResolver turns it into a principal. */
export type VerifiedToken = (
  | { kind: 'login'; userId: string }
  | { kind: 'legacy-admin'; username: string }
  | { kind: 'legacy-server'; subject: string; serverIds: string[] }
) & { /** Its `exp`, in epoch ms. */ expiresAt: number };

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresAt: string;
}

const VERIFIED_CACHE_LIMIT = 10_000;
export const LOGIN_TOKEN_ISSUER = 'portico';

/**
 * HS256 tokens signed with JWT_SECRET: the short-lived login tokens of POST /api/v1/auth/token.
 * They name a user, whose current role and teams apply on every request, so disabling or deleting
 * the user ends them.
 */
@Injectable()
export class TokenService {
  private readonly jwt: JwtService;
  /** Tokens already verified, until they expire: HS256 verification is costly per request. */
  private readonly verified = new Memo<string, VerifiedToken>(VERIFIED_CACHE_LIMIT);

  constructor(
    private readonly authSettings: AuthSettings,
    secrets: SecretSettings,
  ) {
    this.jwt = new JwtService({
      secret: secrets.jwtSecret,
      signOptions: { algorithm: 'HS256', issuer: LOGIN_TOKEN_ISSUER },
    });
  }

  issueLogin(userId: string, ttlSeconds = this.authSettings.tokenTtlSeconds): IssuedToken {
    const accessToken = this.jwt.sign({ sub: userId, typ: 'login' }, { expiresIn: ttlSeconds });
    const { exp } = this.jwt.decode<LoginClaims>(accessToken);
    return { accessToken, tokenType: 'Bearer', expiresAt: new Date(exp * 1000).toISOString() };
  }

  verify(token: string, now = Date.now()): VerifiedToken {
    const cached = this.verified.get(token);
    if (cached && cached.expiresAt > now) return cached;
    const verified = this.verifySignature(token);
    return this.verified.remember(token, verified);
  }

  private verifySignature(token: string): VerifiedToken {
    let claims: Partial<LoginClaims & LegacyClaims>;
    try {
      claims = this.jwt.verify(token, { algorithms: ['HS256'], issuer: LOGIN_TOKEN_ISSUER });
    } catch {
      throw invalid('The bearer token is invalid or expired.');
    }
    const { sub, exp } = claims;
    if (typeof sub !== 'string' || typeof exp !== 'number')
      throw invalid('The bearer token is malformed.');
    const expiresAt = exp * 1000;
    if (claims.typ === 'login') return { kind: 'login', userId: sub, expiresAt };
    if (claims.scope === 'admin') return { kind: 'legacy-admin', username: sub, expiresAt };
    const { srv } = claims;
    if (
      claims.scope === 'server' &&
      Array.isArray(srv) &&
      srv.every((id) => typeof id === 'string')
    ) {
      return { kind: 'legacy-server', subject: sub, serverIds: srv, expiresAt };
    }
    throw invalid('The bearer token has an unknown scope.');
  }
}

function invalid(message: string): AuthException {
  return new AuthException(AuthErrorCode.Unauthenticated, message);
}
