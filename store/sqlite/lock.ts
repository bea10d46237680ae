/**
 * One writer per data directory. `trawl start` and `trawl crawl` take `trawl.lock` (created with
 * O_EXCL, holding the owner's pid); a lock whose process is gone is stale and taken over.
 */
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export class LockError extends Error {
  readonly code = 'ERR_LOCKED';
}

export type Lock = { readonly file: string; release(): void };

type Owner = { pid: number; command: string; startedAt: string };

export function acquireLock(dataDir: string, command: string): Lock {
  const file = join(dataDir, 'trawl.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      const owner: Owner = { pid: process.pid, command, startedAt: new Date().toISOString() };
      writeSync(fd, JSON.stringify(owner));
      closeSync(fd);
      let released = false;
      return {
        file,
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(file);
          } catch {
            /* already gone: nothing to release */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readOwner(file);
      if (owner && isAlive(owner.pid)) {
        throw new LockError(
          `data directory ${dataDir} is in use by "trawl ${owner.command}" (pid ${owner.pid}, since ${owner.startedAt}). ` +
            `Stop that process first, or pass another --data directory.`,
        );
      }
      // Stale: its process died without cleaning up. Take it over.
      try {
        unlinkSync(file);
      } catch {
        /* someone else removed it first; retry */
      }
    }
  }
  throw new LockError(`could not take the lock ${file}; another trawl process may be starting. Try again.`);
}

function readOwner(file: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Owner;
    return typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
