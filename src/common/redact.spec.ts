import { redactSecrets, redactValue } from './redact';

describe('redactSecrets', () => {
  const token = 'tok-1234567890abcdef';

  it('masks a whole secret, and a secret inside a longer header value', () => {
    expect(redactSecrets(`got ${token}.`, [token])).toBe('got [redacted].');
    expect(redactSecrets(`echo: ${token}`, [`Bearer ${token}`])).toBe('echo:[redacted]');
  });

  it('masks any part of a secret of 8 characters or more, and leaves shorter parts', () => {
    expect(redactSecrets('saw 567890ab here', [token])).toBe('saw [redacted] here');
    expect(redactSecrets('saw 4567890 here', [token])).toBe('saw 4567890 here');
  });

  it('masks the JSON-escaped form of a secret', () => {
    const key = 'ke"y\\with-quotes-0987654321';
    const body = JSON.stringify({ error: `bad key ${key}` });
    expect(body).toContain('ke\\"y\\\\with');
    const redacted = redactSecrets(body, [key]);
    expect(redacted).not.toMatch(/with-quo|0987654321|ke\\"y/);
    expect(redacted).toBe('{"error":"bad key [redacted]"}');
  });

  it('merges overlapping parts into one mask and keeps the text around them', () => {
    expect(redactSecrets(`a ${token}${token} b`, [token])).toBe('a [redacted] b');
    expect(redactSecrets(`1234567890 and abcdef12`, [token])).toBe('[redacted] and abcdef12');
  });

  it('masks a short secret only whole, and ignores one under 6 characters', () => {
    expect(redactSecrets('k=abc123 and abc12', ['abc123'])).toBe('k=[redacted] and abc12');
    expect(redactSecrets('k=abc12', ['abc12'])).toBe('k=abc12');
  });

  it('leaves text without secrets alone', () => {
    expect(redactSecrets('nothing here at all', [token])).toBe('nothing here at all');
    expect(redactSecrets('nothing', [])).toBe('nothing');
  });
});

describe('redactValue', () => {
  it('redacts every string and key of a JSON value', () => {
    const secret = 'super-secret-value';
    expect(
      redactValue({ message: `x ${secret}`, list: [1, secret], [secret]: true }, [secret]),
    ).toEqual({ message: 'x [redacted]', list: [1, '[redacted]'], '[redacted]': true });
  });
});
