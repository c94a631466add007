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
    // One bit of the ciphertext flipped. (Changing the text's last characters could change only
    // the unused low bits of the last one, and then the value was not altered at all.)
    const raw = Buffer.from(sealed.slice('v1.'.length), 'base64url');
    const last = raw.length - 1;
    raw.writeUInt8(raw.readUInt8(last) ^ 1, last);
    expect(() => unseal(key, `v1.${raw.toString('base64url')}`)).toThrow();
  });
});
