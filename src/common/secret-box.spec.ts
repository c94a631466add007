import { randomBytes } from 'node:crypto';
import { seal, unseal } from './secret-box';

describe('secret box', () => {
  const key = randomBytes(32);

  it('round-trips and hides the plaintext', () => {
    const sealed = seal(key, '{"token":"s3cret"}');
    expect(sealed).not.toContain('s3cret');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(unseal(key, sealed)).toBe('{"token":"s3cret"}');
  });

  it('uses a fresh IV each time', () => {
    expect(seal(key, 'x')).not.toBe(seal(key, 'x'));
  });

  it('refuses another key or an altered value', () => {
    const sealed = seal(key, 'secret');
    expect(() => unseal(randomBytes(32), sealed)).toThrow();
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => unseal(key, tampered)).toThrow();
  });
});
