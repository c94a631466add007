import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../config/app-config';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type Principal } from './principal';

interface Claims {
  sub: string;
  scope: Principal['scope'];
  srv?: string[];
  exp: number;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresAt: string;
}

const VERIFIED_CACHE_LIMIT = 10_000;

@Injectable()
export class TokenService {
  private readonly jwt: JwtService;
  /** Tokens already verified, until they expire: HS256 verification is costly per request. */
  private readonly verified = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(private readonly config: AppConfig) {
    this.jwt = new JwtService({
      secret: config.jwtSecret,
      signOptions: { algorithm: 'HS256', issuer: 'portico' },
    });
  }

  issue(principal: Principal, ttlSeconds = this.config.tokenTtlSeconds): IssuedToken {
    const payload =
      principal.scope === 'admin'
        ? { sub: principal.subject, scope: principal.scope }
        : { sub: principal.subject, scope: principal.scope, srv: principal.serverIds };
    const accessToken = this.jwt.sign(payload, { expiresIn: ttlSeconds });
    const { exp } = this.jwt.decode<Claims>(accessToken);
    return { accessToken, tokenType: 'Bearer', expiresAt: new Date(exp * 1000).toISOString() };
  }

  verify(token: string): Principal {
    const cached = this.verified.get(token);
    if (cached && cached.expiresAt > Date.now()) return cached.principal;
    const { principal, exp } = this.verifySignature(token);
    if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
    this.verified.set(token, { principal, expiresAt: exp * 1000 });
    return principal;
  }

  private verifySignature(token: string): { principal: Principal; exp: number } {
    let claims: Claims;
    try {
      claims = this.jwt.verify<Claims>(token, { algorithms: ['HS256'], issuer: 'portico' });
    } catch {
      throw new AuthException(
        AuthErrorCode.Unauthenticated,
        'The bearer token is invalid or expired.',
      );
    }
    if (claims.scope === 'admin')
      return { principal: { subject: claims.sub, scope: 'admin' }, exp: claims.exp };
    if (claims.scope === 'server' && Array.isArray(claims.srv)) {
      return {
        principal: { subject: claims.sub, scope: 'server', serverIds: claims.srv },
        exp: claims.exp,
      };
    }
    throw new AuthException(
      AuthErrorCode.Unauthenticated,
      'The bearer token has an unknown scope.',
    );
  }
}
