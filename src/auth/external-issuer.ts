import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import { boundedFetch, cappedResponse } from '../common/remote-body';
import { AuthSettings, type OidcConfig } from '../config/slices/auth.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { resourceTarget } from './oauth-resource';
import { AuthErrorCode, AuthException } from './auth.exception';
import { mapClaims, subjectOf } from './claims-mapping';
import { jose } from './jose';
import { McpAccess } from './mcp-access';
import { type Principal } from './principal';
import { TeamNames } from './team-names';
import { UserDirectory } from './user-directory';

/** Asymmetric algorithms only: a symmetric one would let anyone holding the client secret mint tokens. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

type KeySet = ReturnType<typeof Jose.createRemoteJWKSet>;

/** The most of a discovery document or key set read (real ones are a few KiB). */
const DOCUMENT_MAX_BYTES = 1024 * 1024;

/**
 * Access tokens of the configured OpenID Connect provider. The provider is found through its
 * discovery document; its signing keys come from its JWKS through jose, which fetches them again
 * when a token names an unknown key and after OIDC_JWKS_CACHE_SECONDS, so a rotated-out key stops
 * working. Issuer, expiry and audience are checked; the audience must be one of OIDC_AUDIENCE, or
 * the URL of an MCP endpoint, to which the token is then bound (RFC 8707).
 */
@Injectable()
export class ExternalIssuer {
  private readonly logger = new Logger(ExternalIssuer.name);
  private keys: Promise<KeySet> | null = null;
  /** The configured provider's issuer; null without one. */
  readonly issuer: string | null;

  constructor(
    private readonly authSettings: AuthSettings,
    private readonly serverSettings: ServerSettings,
    private readonly users: UserDirectory,
    private readonly teams: TeamNames,
    private readonly mcp: McpAccess,
  ) {
    this.issuer = authSettings.oidc?.issuer ?? null;
  }

  async principal(token: string): Promise<Principal> {
    const oidc = this.authSettings.oidc;
    if (!oidc) throw invalid('No identity provider is configured.');
    const { jwtVerify } = await jose();
    let payload: Jose.JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.keySet(oidc), {
        issuer: oidc.issuer,
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      if (error instanceof AuthException) throw error;
      throw invalid(`The identity provider's token was refused: ${(error as Error).message}`);
    }
    const sub = subjectOf(payload);
    if (sub === null)
      throw invalid(
        'The identity provider’s token names its subject with a NUL or an unpaired surrogate.',
      );
    const audience = this.boundAudience(payload.aud, oidc);
    const mapped = mapClaims(payload, oidc);
    if (mapped.role === null)
      throw invalid('None of this identity’s groups has a role in Portico.');
    const userId = await this.users.idOfExternal(oidc.issuer, sub);
    if (userId !== null && (await this.users.get(userId))?.disabled)
      throw invalid('This user may no longer sign in.');
    return {
      subject: userId
        ? `user:${userId}`
        : `oidc:${createHash('sha256').update(`${oidc.issuer}\0${sub}`).digest('hex').slice(0, 40)}`,
      name: mapped.username,
      userId,
      role: mapped.role,
      teamIds: await this.teams.ids(mapped.teamNames),
      serverIds: null,
      audience,
      tokenId: null,
      source: 'external',
      // A required claim: jwtVerify checked it is a number, and in the future.
      expiresAt: payload.exp! * 1000,
    };
  }

  /** null: good for every endpoint its user may use; a URL: bound to that MCP endpoint. */
  private boundAudience(aud: unknown, oidc: OidcConfig): string | null {
    const audiences = (Array.isArray(aud) ? aud : [aud]).filter(
      (value): value is string => typeof value === 'string',
    );
    if (audiences.some((value) => oidc.audiences.includes(value))) return null;
    for (const value of audiences) {
      const target = resourceTarget(value, this.serverSettings.publicUrl);
      if (target) return this.mcp.resourceUrl(target);
    }
    throw invalid('The token was issued for another audience.');
  }

  /** The provider's key set, from its discovery document; looked up again after a failure. */
  private keySet(oidc: OidcConfig): Promise<KeySet> {
    this.keys ??= this.discover(oidc).catch((error: unknown) => {
      this.keys = null;
      this.logger.warn(`OpenID discovery of ${oidc.issuer} failed: ${(error as Error).message}`);
      throw invalid('The identity provider cannot be reached.');
    });
    return this.keys;
  }

  private async discover(oidc: OidcConfig): Promise<KeySet> {
    const url = `${oidc.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const document = (await cappedResponse(response, DOCUMENT_MAX_BYTES).json()) as {
      issuer?: unknown;
      jwks_uri?: unknown;
    };
    if (document.issuer !== oidc.issuer)
      throw new Error(`the discovery document names the issuer ${String(document.issuer)}`);
    if (typeof document.jwks_uri !== 'string')
      throw new Error('the discovery document has no jwks_uri');
    const { createRemoteJWKSet, customFetch } = await jose();
    const cacheMaxAge = oidc.jwksCacheSeconds * 1000;
    return createRemoteJWKSet(new URL(document.jwks_uri), {
      cacheMaxAge,
      cooldownDuration: Math.min(30_000, cacheMaxAge),
      [customFetch]: boundedFetch(DOCUMENT_MAX_BYTES),
    });
  }
}

function invalid(message: string): AuthException {
  return new AuthException(AuthErrorCode.Unauthenticated, message);
}
