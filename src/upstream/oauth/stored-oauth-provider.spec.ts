import { StoredOAuthProvider } from './stored-oauth-provider';

const CALLBACK = 'https://portico.example.com/admin/connections/callback';

describe('StoredOAuthProvider', () => {
  it('asks for client credentials with the scopes the upstream advertises when none are set', () => {
    const provider = new StoredOAuthProvider(
      { type: 'oauth', mode: 'client-credentials', clientId: 'm', clientSecret: 's' },
      CALLBACK,
      {},
    );
    provider.saveDiscoveryState({
      authorizationServerUrl: 'https://as.example.com',
      resourceMetadata: { resource: 'https://mcp.example.com/mcp', scopes_supported: ['a', 'b'] },
    });
    expect(provider.redirectUrl).toBeUndefined();
    expect(provider.prepareTokenRequest?.()?.toString()).toBe(
      'grant_type=client_credentials&scope=a+b',
    );
  });

  it('prefers configured scopes, and a pre-registered client over a registered one', () => {
    const provider = new StoredOAuthProvider(
      { type: 'oauth', mode: 'client-credentials', clientId: 'm', clientSecret: 's', scope: 'x' },
      CALLBACK,
      { client: { client_id: 'registered' } },
    );
    expect(provider.prepareTokenRequest?.()?.get('scope')).toBe('x');
    expect(provider.clientInformation()).toEqual({ client_id: 'm', client_secret: 's' });
    provider.saveClientInformation({ client_id: 'other' });
    expect(provider.savedClient).toBeUndefined();
  });

  it('registers for the code flow with Portico’s callback, and records a redirect instead of making it', () => {
    const provider = new StoredOAuthProvider({ type: 'oauth', mode: 'per-user' }, CALLBACK, {
      state: 'st',
    });
    expect(provider.prepareTokenRequest).toBeUndefined();
    expect(provider.clientMetadata).toMatchObject({
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(provider.state()).toBe('st');
    provider.redirectToAuthorization(new URL('https://as.example.com/authorize?x=1'));
    expect(provider.authorizationUrl?.href).toBe('https://as.example.com/authorize?x=1');
  });

  it('forgets the tokens the provider refused, and says so', () => {
    const provider = new StoredOAuthProvider({ type: 'oauth', mode: 'shared' }, CALLBACK, {
      tokens: { access_token: 'a', token_type: 'Bearer', refresh_token: 'r' },
    });
    expect(provider.tokens()?.refresh_token).toBe('r');
    provider.invalidateCredentials('tokens');
    expect(provider.tokens()).toBeUndefined();
    expect(provider.tokensInvalidated).toBe(true);
    provider.saveTokens({ access_token: 'b', token_type: 'Bearer' });
    expect(provider.tokensInvalidated).toBe(false);
    expect(provider.tokens()?.access_token).toBe('b');
  });
});
