import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLock, DataDirLockedError } from './data-dir-lock';

function dataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'portico-lock-')), 'pgdata');
}

function writeLock(dir: string, owner: { pid: number; hostname: string }): void {
  writeFileSync(DataDirLock.pathOf(dir), JSON.stringify({ ...owner, startedAt: 'then' }));
}

describe('DataDirLock', () => {
  it('records this process beside the directory and removes the file on release', () => {
    const dir = dataDir();
    const lock = DataDirLock.acquire(dir, { takeOverForeign: false });
    expect(JSON.parse(readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
    });
    lock.release();
    expect(DataDirLock.owner(dir)).toBeNull();
  });

  it('refuses a directory this process already holds, and frees it on release', () => {
    const dir = dataDir();
    const lock = DataDirLock.acquire(dir, { takeOverForeign: true });
    expect(() => DataDirLock.acquire(dir, { takeOverForeign: true })).toThrow(/already open/);
    lock.release();
    DataDirLock.acquire(dir, { takeOverForeign: true }).release();
  });

  it('refuses a directory held by another live process on this host', async () => {
    const dir = dataDir();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeLock(dir, { pid: other.pid!, hostname: hostname() });
      expect(() => DataDirLock.acquire(dir, { takeOverForeign: true })).toThrow(
        new RegExp(`in use by another process \\(pid ${other.pid}`),
      );
    } finally {
      other.kill();
      await new Promise((resolve) => other.once('exit', resolve));
    }
    // Its process is gone: the lock is stale and taken over.
    DataDirLock.acquire(dir, { takeOverForeign: false }).release();
  });

  it('takes over a lock from another host only when told to', () => {
    const dir = dataDir();
    writeLock(dir, { pid: 1, hostname: 'portico-0-elsewhere' });
    let refused: unknown;
    try {
      DataDirLock.acquire(dir, { takeOverForeign: false });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as DataDirLockedError).foreign).toBe(true);
    DataDirLock.acquire(dir, { takeOverForeign: true }).release();
  });
});
