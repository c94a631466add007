import { randomBytes, scryptSync } from 'node:crypto';
import { CURRENT_PARAMETERS, hashPassword, needsRehash, verifyPassword } from './password-hash';

/** A hash in the first stored format: Node's default parameters, none written down. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32).toString('base64')}`;
}

/** Cheaper than the current parameters (0.1 GiB a hash), where a test is not about them. */
const QUICK = { N: 2 ** 12, r: 8, p: 1 };

describe('password hash', () => {
  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse', QUICK);
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('wrong horse', stored)).toBe(false);
  });

  it('stores its parameters, at or above current guidance (N = 2^17, r = 8, p = 1)', async () => {
    const stored = await hashPassword('x');
    expect(stored).toMatch(/^scrypt\$N=131072,r=8,p=1\$[^$]+\$[^$]+$/);
    expect(CURRENT_PARAMETERS.N).toBeGreaterThanOrEqual(2 ** 17);
    expect(needsRehash(stored)).toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same', QUICK)).not.toBe(await hashPassword('same', QUICK));
  });

  it('verifies the first stored format, and says it needs upgrading', async () => {
    const legacy = legacyHash('old password');
    expect(await verifyPassword('old password', legacy)).toBe(true);
    expect(await verifyPassword('other password', legacy)).toBe(false);
    expect(needsRehash(legacy)).toBe(true);
  });

  it('verifies a hash made with other parameters, and asks to raise weaker ones', async () => {
    const weaker = await hashPassword('pw', QUICK);
    expect(weaker).toContain('$N=4096,r=8,p=1$');
    expect(await verifyPassword('pw', weaker)).toBe(true);
    expect(needsRehash(weaker)).toBe(true);
  });

  it.each([
    'plain',
    'scrypt$N=131072,r=8$c2FsdA==$a2V5',
    'scrypt$N=100,r=8,p=1$c2FsdA==$a2V5a2V5a2V5a2V5a2V5a2V5',
    'scrypt$N=4194304,r=8,p=1$c2FsdA==$a2V5a2V5a2V5a2V5a2V5a2V5',
    'bcrypt$N=16384,r=8,p=1$c2FsdA==$a2V5a2V5a2V5a2V5a2V5a2V5',
  ])('refuses a malformed or unreasonable stored value: %s', async (stored) => {
    expect(await verifyPassword('x', stored)).toBe(false);
  });
});
