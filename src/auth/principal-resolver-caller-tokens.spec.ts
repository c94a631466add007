import { CallerTokens, exchangeSubjectOf } from './principal-resolver';
import { type Principal } from './principal';

const principal = (source: Principal['source'], expiresAt?: number): Principal => ({
  subject: 'user:alice',
  name: 'alice',
  userId: 'alice',
  role: 'member',
  teamIds: [],
  serverIds: null,
  audience: null,
  tokenId: null,
  source,
  expiresAt,
});

describe('CallerTokens', () => {
  it('keeps the latest token of an OAuth or identity provider caller, until it expires', () => {
    const tokens = new CallerTokens();
    tokens.remember(principal('oauth', Date.now() + 60_000), 'first');
    tokens.remember(principal('external', Date.now() + 60_000), 'second');
    expect(tokens.of('user:alice')?.token).toBe('second');
    tokens.remember(principal('external', Date.now() - 1), 'expired');
    expect(tokens.of('user:alice')).toBeNull();
  });

  it('keeps no token that no token service could take', () => {
    const tokens = new CallerTokens();
    for (const source of ['api-token', 'login-token', 'session', 'legacy-token'] as const) {
      tokens.remember(principal(source), 'portico-only');
      expect(tokens.of('user:alice')).toBeNull();
      expect(exchangeSubjectOf(principal(source))).toBeNull();
    }
    expect(exchangeSubjectOf(principal('oauth'))).toBe('user:alice');
  });
});
