import { redactSecrets } from './redact-secrets';

describe('redactSecrets', () => {
  const token = 'ghp_abcdefghijklmnopqrstuvwxyz012345';

  it('cuts a secret whole, and any run of 8 or more of its characters', () => {
    expect(redactSecrets(`Authorization: Bearer ${token}`, [token])).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets(`seen ${token.slice(5, 20)} here`, [token])).toBe('seen [redacted] here');
    expect(redactSecrets(`prefix ${token.slice(0, 8)}!`, [token])).toBe('prefix [redacted]!');
  });

  it('keeps runs shorter than 8 characters, which would blank out ordinary words', () => {
    expect(redactSecrets(`a ${token.slice(0, 7)} b`, [token])).toBe(`a ${token.slice(0, 7)} b`);
  });

  it('cuts the JSON-escaped form of a secret', () => {
    const secret = 'p"ss\\word-with-quotes';
    const escaped = JSON.stringify({ echoed: secret });
    expect(escaped).not.toContain(secret);
    expect(redactSecrets(escaped, [secret])).toBe('{"echoed":"[redacted]"}');
  });

  it('cuts short secrets only where they appear whole, and not below 6 characters', () => {
    expect(redactSecrets('key=k3y-val; k3y-', ['k3y-val'])).toBe('key=[redacted]; k3y-');
    expect(redactSecrets('abc is fine', ['abc'])).toBe('abc is fine');
  });

  it('joins overlapping and adjacent runs into one cut', () => {
    expect(redactSecrets(`${token}${token}`, [token])).toBe('[redacted]');
  });

  it('leaves text without secrets as it was', () => {
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
  });
});
