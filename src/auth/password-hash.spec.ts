import { hashPassword, verifyPassword } from './password-hash';

describe('password hash', () => {
  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('wrong horse', stored)).toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('rejects a malformed stored value', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
  });
});
