import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSecret } from './secret-ref';

describe('resolveSecret', () => {
  const root = mkdtempSync(join(tmpdir(), 'portico-secrets-'));
  const secretsDir = join(root, 'secrets');
  mkdirSync(join(secretsDir, 'github'), { recursive: true });
  writeFileSync(join(secretsDir, 'github', 'token'), 'from-file\n');
  writeFileSync(join(root, 'outside'), 'not yours');
  symlinkSync(join(root, 'outside'), join(secretsDir, 'sneaky'));
  writeFileSync(join(secretsDir, 'empty'), '');
  mkdirSync(join(secretsDir, 'kubernetes.io', 'serviceaccount'), { recursive: true });
  writeFileSync(join(secretsDir, 'kubernetes.io', 'serviceaccount', 'token'), 'pod-token');
  symlinkSync(join(secretsDir, 'kubernetes.io'), join(secretsDir, 'k8s'));
  writeFileSync(join(secretsDir, 'big'), 'x'.repeat(65 * 1024));
  const source = { env: { GITHUB_TOKEN: 'from-env', EMPTY: '' }, secretsDir };

  it('reads an environment variable, and a file under the directory without its newline', () => {
    expect(resolveSecret({ fromEnv: 'GITHUB_TOKEN' }, source, 'x')).toBe('from-env');
    expect(resolveSecret({ fromFile: 'github/token' }, source, 'x')).toBe('from-file');
    expect(resolveSecret({ fromFile: join(secretsDir, 'github/token') }, source, 'x')).toBe(
      'from-file',
    );
  });

  it('refuses what is unset, empty, outside the directory, or one of Portico’s own settings', () => {
    expect(() => resolveSecret({ fromEnv: 'UNSET' }, source, 'Gateway')).toThrow(
      'Gateway names the environment variable UNSET, which is not set.',
    );
    expect(() => resolveSecret({ fromEnv: 'EMPTY' }, source, 'x')).toThrow(/not set/);
    for (const name of ['ENCRYPTION_KEY', 'DATABASE_URL', 'JWT_SECRET', 'PORTICO_PASSWORD'])
      expect(() => resolveSecret({ fromEnv: name }, source, 'x')).toThrow(/Portico's own/);
    expect(() => resolveSecret({ fromFile: '../outside' }, source, 'x')).toThrow(/outside/);
    expect(() => resolveSecret({ fromFile: 'sneaky' }, source, 'x')).toThrow(/outside/);
    expect(() => resolveSecret({ fromFile: 'missing' }, source, 'x')).toThrow(/cannot be read/);
    expect(() => resolveSecret({ fromFile: 'empty' }, source, 'x')).toThrow(/empty/);
    expect(() => resolveSecret({ fromFile: 'big' }, source, 'x')).toThrow(/at most 64 KiB/);
    expect(() => resolveSecret({ fromFile: 'github' }, source, 'x')).toThrow(/not a file/);
  });

  it("refuses the pod's own service account token, however the path reaches it", () => {
    for (const fromFile of [
      'kubernetes.io/serviceaccount/token',
      './kubernetes.io/serviceaccount/token',
      'github/../kubernetes.io/serviceaccount/token',
      'k8s/serviceaccount/token',
    ])
      expect(() => resolveSecret({ fromFile }, source, 'x')).toThrow(/the pod's own credentials/);
  });
});
