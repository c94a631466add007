import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

/** Why a data directory cannot be used now. */
export class DataDirLockedError extends Error {
  constructor(
    message: string,
    readonly owner: LockOwner,
    /** The lock was written on another host, so whether its process still runs is unknown. */
    readonly foreign: boolean,
  ) {
    super(message);
  }
}

/**
 * Marks an embedded data directory as in use by this process, in `<dataDir>.lock` beside it (not
 * inside, so that a backup of the directory does not carry it). PGlite has no lock of its own, and
 * two processes writing one directory corrupt it.
 *
 * A lock whose process is gone (a crash, a container restarted with the same pid) is stale and
 * taken over. A lock written on another host cannot be checked: the server takes it over (a pod
 * rescheduled after a crash, on a volume only it mounts), backup and restore refuse it unless
 * told otherwise (another pod may still run on a shared volume).
 */
export class DataDirLock {
  /** Directories this process holds: its own pid in a lock file says nothing about the holder. */
  private static readonly held = new Set<string>();

  private constructor(private readonly path: string) {}

  static pathOf(dataDir: string): string {
    return `${resolve(dataDir)}.lock`;
  }

  static acquire(dataDir: string, options: { takeOverForeign: boolean }): DataDirLock {
    const path = DataDirLock.pathOf(dataDir);
    const owner = DataDirLock.owner(dataDir);
    if (DataDirLock.held.has(path) && owner) {
      throw new DataDirLockedError(`${dataDir} is already open in this process.`, owner, false);
    }
    if (owner && ownedByLiveProcess(owner)) {
      throw new DataDirLockedError(
        `${dataDir} is in use by another process (pid ${owner.pid}, since ${owner.startedAt}).`,
        owner,
        false,
      );
    }
    if (owner && owner.hostname !== hostname() && !options.takeOverForeign) {
      throw new DataDirLockedError(
        `${dataDir} is marked in use by a process on host ${owner.hostname} (pid ${owner.pid}, ` +
          `since ${owner.startedAt}), which cannot be checked from here.`,
        owner,
        true,
      );
    }
    const mine: LockOwner = {
      pid: process.pid,
      hostname: hostname(),
      startedAt: new Date().toISOString(),
    };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(mine) + '\n', { mode: 0o600 });
    DataDirLock.held.add(path);
    return new DataDirLock(path);
  }

  /** The lock's owner, or null when the directory is not locked. */
  static owner(dataDir: string): LockOwner | null {
    let text: string;
    try {
      text = readFileSync(DataDirLock.pathOf(dataDir), 'utf8');
    } catch {
      return null;
    }
    try {
      const owner = JSON.parse(text) as Partial<LockOwner>;
      if (typeof owner.pid === 'number' && typeof owner.hostname === 'string')
        return { pid: owner.pid, hostname: owner.hostname, startedAt: String(owner.startedAt) };
    } catch {
      // An unreadable lock file is treated as no lock: it cannot name a process to wait for.
    }
    return null;
  }

  release(): void {
    DataDirLock.held.delete(this.path);
    rmSync(this.path, { force: true });
  }
}

/** True when the owner is a process running on this host other than this one. */
export function ownedByLiveProcess(owner: LockOwner): boolean {
  if (owner.hostname !== hostname() || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
