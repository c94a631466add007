import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import type * as Client from 'openid-client' with { 'resolution-mode': 'import' };
import { AuthSettings, type OidcConfig } from '../config/slices/auth.settings';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { deriveKey, signValue, verifyValue } from '../common/signed-value';
import { AuthErrorCode, AuthException } from './auth.exception';
import { type MappedIdentity, mapClaims, SUBJECT_LIMIT, subjectOf } from './claims-mapping';
import { TeamNames } from './team-names';
import { whenMigrated } from './when-migrated';

/** openid-client is published as ES modules only; loaded once, on first use. */
let loading: Promise<typeof Client> | undefined;
function openidClient(): Promise<typeof Client> {
  loading ??= import('openid-client');
  return loading;
}

/** What the browser carries between leaving for the provider and coming back, signed. */
interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  exp: number;
}

const PENDING_SECONDS = 10 * 60;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface SignedInIdentity extends MappedIdentity {
  issuer: string;
  subject: string;
}

/**
 * Sign-in to the admin pages through the configured OpenID Connect provider with openid-client:
 * authorization code with PKCE (S256), state and nonce, the ID token checked by openid-client.
 * The pending sign-in travels in a signed cookie, so any replica can take the provider's answer.
 */
@Injectable()
export class OidcLogin implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OidcLogin.name);
  private readonly key: Buffer;
  private configuration: Promise<Client.Configuration> | null = null;
  private cancel?: () => void;

  constructor(
    private readonly authSettings: AuthSettings,
    secrets: SecretSettings,
    private readonly serverSettings: ServerSettings,
    private readonly teams: TeamNames,
    private readonly dataSource: DataSource,
  ) {
    this.key = deriveKey(secrets.jwtSecret, 'admin-sso');
  }

  /** SSO is offered when a provider and Portico's client at it are configured. */
  get enabled(): boolean {
    return this.authSettings.oidc?.clientId != null;
  }

  get label(): string {
    return this.authSettings.oidc?.label ?? '';
  }

  get callbackUrl(): string {
    return `${this.serverSettings.publicUrl}/admin/sso/callback`;
  }

  /** The teams the group mapping names exist before anyone signs in. */
  async onApplicationBootstrap(): Promise<void> {
    const oidc = this.authSettings.oidc;
    if (!oidc) return;
    const names = [...new Set([...oidc.teamMap.values()].flat())];
    this.cancel = await whenMigrated(this.dataSource, this.logger, () => this.teams.ensure(names));
  }

  onModuleDestroy(): void {
    this.cancel?.();
  }

  /** Where to send the browser, and the cookie value that remembers the attempt. */
  async start(next: string): Promise<{ url: string; pending: string }> {
    const oidc = this.settings();
    const client = await openidClient();
    const configuration = await this.discovered(oidc);
    const pending: PendingSignIn = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      next,
      exp: Math.floor(Date.now() / 1000) + PENDING_SECONDS,
    };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.callbackUrl,
      scope: oidc.scopes,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending: signValue(this.key, pending) };
  }

  /**
   * Checks the provider's answer against the pending attempt (state, nonce, PKCE, the ID token's
   * signature, issuer, audience and expiry) and maps the person's claims.
   */
  async finish(
    callbackQuery: string,
    pendingValue: string | undefined,
  ): Promise<{ identity: SignedInIdentity; next: string }> {
    const oidc = this.settings();
    const pending = pendingValue
      ? (verifyValue(this.key, pendingValue) as Partial<PendingSignIn> | null)
      : null;
    if (
      !pending ||
      typeof pending.state !== 'string' ||
      typeof pending.nonce !== 'string' ||
      typeof pending.verifier !== 'string' ||
      typeof pending.next !== 'string' ||
      typeof pending.exp !== 'number' ||
      pending.exp * 1000 <= Date.now()
    ) {
      throw refused('The sign-in took too long or did not start here; try again.');
    }
    const client = await openidClient();
    const configuration = await this.discovered(oidc);
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(
        configuration,
        new URL(`${this.callbackUrl}?${callbackQuery}`),
        {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        },
      );
      claims = tokens.claims();
    } catch (error) {
      this.logger.warn(`SSO sign-in refused: ${(error as Error).message}`);
      throw refused('The identity provider’s answer was refused; try again.');
    }
    if (!claims) throw refused('The identity provider sent no ID token.');
    const subject = subjectOf(claims, SUBJECT_LIMIT);
    if (subject === null)
      throw refused(
        'The identity provider named the person with a subject Portico cannot keep (OpenID Connect allows at most 255 characters).',
      );
    return {
      identity: { ...mapClaims(claims, oidc), issuer: oidc.issuer, subject },
      next: pending.next,
    };
  }

  private settings(): OidcConfig & { clientId: string } {
    const oidc = this.authSettings.oidc;
    if (!oidc?.clientId) throw refused('Single sign-on is not configured.');
    return { ...oidc, clientId: oidc.clientId };
  }

  private discovered(oidc: OidcConfig & { clientId: string }): Promise<Client.Configuration> {
    this.configuration ??= (async () => {
      const client = await openidClient();
      const issuer = new URL(oidc.issuer);
      return client.discovery(
        issuer,
        oidc.clientId,
        oidc.clientSecret ?? undefined,
        oidc.clientSecret ? client.ClientSecretPost(oidc.clientSecret) : client.None(),
        // Plain http only to a provider on this machine (development and tests).
        LOOPBACK.has(issuer.hostname) ? { execute: [client.allowInsecureRequests] } : undefined,
      );
    })().catch((error: unknown) => {
      this.configuration = null;
      this.logger.warn(`OpenID discovery of ${oidc.issuer} failed: ${(error as Error).message}`);
      throw refused('The identity provider cannot be reached; try again later.');
    });
    return this.configuration;
  }
}

function refused(message: string): AuthException {
  return new AuthException(AuthErrorCode.InvalidCredentials, message);
}
