import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { deriveKey } from '../common/signed-value';
import { AuthErrorCode, AuthException } from './auth.exception';
import { jose } from './jose';

/** RFC 9068: the JWT profile for OAuth access tokens. */
const TOKEN_TYPE = 'at+jwt';

export interface AccessTokenClaims {
  /** The user. */
  sub: string;
  /** The MCP endpoint URL (RFC 8707 resource) the token is bound to. */
  aud: string;
  client_id: string;
  scope: string;
  /** The grant it was issued under; revoking the grant ends it. */
  gid: string;
  exp: number;
}

/**
 * Access tokens of the embedded authorization server: JWTs (RFC 9068) signed with a key derived
 * from JWT_SECRET, issued and verified by Portico alone, so a shared secret serves every replica.
 */
@Injectable()
export class OAuthAccessTokens {
  private readonly key: Uint8Array;
  /** The embedded authorization server's issuer identifier. */
  readonly issuer: string;

  constructor(secrets: SecretSettings, server: ServerSettings) {
    this.key = deriveKey(secrets.jwtSecret, 'oauth-access-token');
    this.issuer = new URL(server.publicUrl).origin;
  }

  async sign(claims: Omit<AccessTokenClaims, 'exp'>, ttlSeconds: number): Promise<string> {
    const { SignJWT } = await jose();
    return new SignJWT({ client_id: claims.client_id, scope: claims.scope, gid: claims.gid })
      .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE })
      .setIssuer(this.issuer)
      .setSubject(claims.sub)
      .setAudience(claims.aud)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.key);
  }

  /** The claims of a valid, unexpired token of this issuer; throws 401 otherwise. */
  async verify(token: string): Promise<AccessTokenClaims> {
    const { jwtVerify } = await jose();
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        typ: TOKEN_TYPE,
        requiredClaims: ['sub', 'aud', 'exp', 'gid', 'client_id'],
      });
      const { sub, aud, client_id: clientId, scope, gid, exp } = payload;
      if (
        typeof sub !== 'string' ||
        typeof aud !== 'string' ||
        typeof clientId !== 'string' ||
        typeof gid !== 'string' ||
        typeof exp !== 'number'
      ) {
        throw new Error('malformed claims');
      }
      return {
        sub,
        aud,
        client_id: clientId,
        scope: typeof scope === 'string' ? scope : '',
        gid,
        exp,
      };
    } catch {
      throw new AuthException(
        AuthErrorCode.Unauthenticated,
        'The access token is invalid or expired.',
      );
    }
  }
}
