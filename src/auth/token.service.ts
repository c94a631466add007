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

@Injectable()
export class TokenService {
  private readonly jwt: JwtService;

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
    let claims: Claims;
    try {
      claims = this.jwt.verify<Claims>(token, { algorithms: ['HS256'], issuer: 'portico' });
    } catch {
      throw new AuthException(
        AuthErrorCode.Unauthenticated,
        'The bearer token is invalid or expired.',
      );
    }
    if (claims.scope === 'admin') return { subject: claims.sub, scope: 'admin' };
    if (claims.scope === 'server' && Array.isArray(claims.srv)) {
      return { subject: claims.sub, scope: 'server', serverIds: claims.srv };
    }
    throw new AuthException(
      AuthErrorCode.Unauthenticated,
      'The bearer token has an unknown scope.',
    );
  }
}
