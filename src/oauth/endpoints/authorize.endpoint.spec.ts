import { redirectUriMatches } from './authorize.endpoint';

describe('redirectUriMatches', () => {
  it('takes the registered URI exactly', () => {
    expect(redirectUriMatches('https://app.example.com/cb', 'https://app.example.com/cb')).toBe(
      true,
    );
    expect(redirectUriMatches('https://app.example.com/cb2', 'https://app.example.com/cb')).toBe(
      false,
    );
    expect(
      redirectUriMatches('https://app.example.com:8443/cb', 'https://app.example.com/cb'),
    ).toBe(false);
    expect(redirectUriMatches('https://app.example.com/cb?x=1', 'https://app.example.com/cb')).toBe(
      false,
    );
  });

  it('lets a loopback URI use any port, and nothing else differ (RFC 8252 §7.3)', () => {
    expect(redirectUriMatches('http://127.0.0.1:51000/cb', 'http://127.0.0.1:53682/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:51000/other', 'http://127.0.0.1:53682/cb')).toBe(
      false,
    );
    expect(redirectUriMatches('http://localhost:51000/cb', 'http://127.0.0.1:53682/cb')).toBe(
      false,
    );
    expect(redirectUriMatches('https://127.0.0.1:51000/cb', 'http://127.0.0.1:53682/cb')).toBe(
      false,
    );
  });
});
