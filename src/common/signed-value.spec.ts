import { deriveKey, signValue, verifyValue } from './signed-value';

describe('signed values', () => {
  const key = deriveKey('a'.repeat(48), 'admin-session');

  it('round-trips a payload', () => {
    const value = signValue(key, { sub: 'admin', exp: 42 });
    expect(verifyValue(key, value)).toEqual({ sub: 'admin', exp: 42 });
  });

  it('refuses an altered payload or signature', () => {
    const value = signValue(key, { sub: 'admin' });
    const [body, signature] = value.split('.') as [string, string];
    const forgedBody = Buffer.from(JSON.stringify({ sub: 'root' })).toString('base64url');
    expect(verifyValue(key, `${forgedBody}.${signature}`)).toBeNull();
    expect(verifyValue(key, `${body}.${signature.slice(0, -1)}`)).toBeNull();
    expect(verifyValue(key, body)).toBeNull();
    expect(verifyValue(key, '')).toBeNull();
  });

  it('refuses a value signed for another purpose or with another secret', () => {
    const value = signValue(key, { sub: 'admin' });
    expect(verifyValue(deriveKey('a'.repeat(48), 'flash'), value)).toBeNull();
    expect(verifyValue(deriveKey('b'.repeat(48), 'admin-session'), value)).toBeNull();
  });

  it('accepts a value made by another instance with the same secret, as another replica would', () => {
    const value = signValue(deriveKey('shared-secret', 'admin-session'), { sub: 'admin' });
    expect(verifyValue(deriveKey('shared-secret', 'admin-session'), value)).toEqual({
      sub: 'admin',
    });
  });
});
