import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'portico-test-'));
}
