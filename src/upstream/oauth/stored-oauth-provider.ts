import { type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/client';
import {
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { type OAuthSettings } from '../upstream-credentials';

/** What Portico holds for one upstream and one owner when it runs the SDK's `auth()`. */
export interface StoredOAuthState {
  /** A client registered dynamically earlier; a pre-registered one comes from the settings. */
  client?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
  tokens?: OAuthTokens;
  /** The PKCE verifier of the authorization being finished. */
  codeVerifier?: string;
  /** The OAuth `state` sent with a new authorization. */
  state?: string;
}

/**
 * The SDK's OAuthClientProvider over one run of `auth()`: it reads what Portico stored, and
 * records what `auth()` hands back (tokens, a registered client, discovery, a redirect to the
 * provider) for the caller to keep. It never redirects anyone itself: a run in the background
 * that ends up wanting a person (the grant is gone) is recognised by `authorizationUrl`.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  savedTokens?: OAuthTokens;
  savedClient?: OAuthClientInformationMixed;
  savedDiscovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  savedCodeVerifier?: string;
  /** `auth()` found the tokens no longer valid (the grant was revoked or expired). */
  tokensInvalidated = false;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly callbackUrl: string,
    private readonly stored: StoredOAuthState,
  ) {
    if (settings.mode === 'client-credentials')
      this.prepareTokenRequest = () => {
        // As for a person's authorization (SEP-835): the configured scopes, else those the
        // upstream advertises in its protected resource metadata, discovered by now.
        const scope =
          settings.scope ?? this.discoveryState()?.resourceMetadata?.scopes_supported?.join(' ');
        return new URLSearchParams({
          grant_type: 'client_credentials',
          ...(scope ? { scope } : {}),
        });
      };
  }

  prepareTokenRequest?: (scope?: string) => URLSearchParams;

  /** Client credentials need no person, hence no redirect: `auth()` then fetches tokens at once. */
  get redirectUrl(): string | undefined {
    return this.settings.mode === 'client-credentials' ? undefined : this.callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Portico MCP gateway',
      redirect_uris: this.settings.mode === 'client-credentials' ? [] : [this.callbackUrl],
      grant_types:
        this.settings.mode === 'client-credentials'
          ? ['client_credentials']
          : ['authorization_code', 'refresh_token'],
      response_types: this.settings.mode === 'client-credentials' ? [] : ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
    };
  }

  state(): string {
    return this.stored.state ?? '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.settings.clientId)
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}),
      };
    return this.savedClient ?? this.stored.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    // A pre-registered client stays in the gateway's settings; only a registered one is kept.
    if (!this.settings.clientId) this.savedClient = information;
  }

  tokens(): OAuthTokens | undefined {
    if (this.tokensInvalidated) return undefined;
    return this.savedTokens ?? this.stored.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.tokensInvalidated = false;
    this.savedTokens = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.savedCodeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.stored.codeVerifier) throw new Error('No authorization is under way');
    return this.stored.codeVerifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.tokensInvalidated = true;
    if (scope === 'all' || scope === 'client') {
      this.stored.client = undefined;
      this.savedClient = undefined;
    }
    if (scope === 'all' || scope === 'discovery') this.stored.discovery = undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.savedDiscovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.savedDiscovery ?? this.stored.discovery;
  }
}
