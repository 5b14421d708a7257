/**
 * One `npm run dev` per working tree: two would regenerate generated/ at the same time (a file
 * half-written by one read by the other) and fight over the port and the snapshots. The lock is a
 * file holding the owner's PID, created exclusively (O_EXCL); a lock whose process is gone (killed,
 * the machine restarted) is stale and taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DevLockOwner {
  pid: number;
  since: string;
}

export type DevLock = { acquired: true; release: () => void } | { acquired: false; owner: DevLockOwner };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(path: string): DevLockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<DevLockOwner>;
    return typeof owner.pid === 'number' && typeof owner.since === 'string' ? { pid: owner.pid, since: owner.since } : undefined;
  } catch {
    return undefined;
  }
}

export function acquireDevLock(path: string): DevLock {
  mkdirSync(dirname(path), { recursive: true });
  // Once more after removing a stale lock; if another process took it meanwhile, it is refused then.
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(path, JSON.stringify({ pid: process.pid, since: new Date().toISOString() } satisfies DevLockOwner), { flag: 'wx' });
      return {
        acquired: true,
        release: () => {
          if (ownerOf(path)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(path);
    if (owner !== undefined && isAlive(owner.pid)) return { acquired: false, owner };
    if (attempt > 0) return { acquired: false, owner: owner ?? { pid: 0, since: 'just now' } };
    // Its process is gone, or it is unreadable (cut short when written): stale.
    rmSync(path, { force: true });
  }
}
