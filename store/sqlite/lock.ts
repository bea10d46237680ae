/**
 * One writer per data directory. A writer (`trawl start`, `crawl`, `recrawl`) holds an exclusive
 * SQLite lock on `writer.lock` for as long as it runs: an operating-system lock, which the kernel
 * releases when the process ends in any way — kill -9 included — so a dead writer never blocks the
 * next start, and two processes can never both hold it (there is no "stale lock" to take over, so
 * no race in taking one over). Who holds it is written beside it (`writer.lock.owner`, by a
 * rename, so a reader never sees half of it) for the refusal to name the holder.
 *
 * The lock file is never moved or deleted: a process could have it open, and a new file at the
 * same path would be a second lock. (Older Trawls kept a JSON `trawl.lock`, created with O_EXCL and
 * taken over when its pid looked dead — which raced. It is no lock at all now, and is removed by
 * the next writer.)
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export class LockError extends Error {
  readonly code = 'ERR_LOCKED';
}

export type Lock = { readonly file: string; release(): void };

type Owner = { pid: number; command: string; startedAt: string };

const LOCK_FILE = 'writer.lock';
/** The lock file of older Trawls (a JSON file): removed by a writer that holds the lock. */
const LEGACY_LOCK_FILE = 'trawl.lock';

export function acquireLock(dataDir: string, command: string): Lock {
  const file = join(dataDir, LOCK_FILE);
  const ownerFile = `${file}.owner`;
  // A short busy timeout: writers starting at the same moment all read the file first, and the one
  // that wins must wait for the others to let go (they give up their read lock when they fail).
  const db = new Database(file, { timeout: 1000 });
  try {
    // An exclusive transaction kept open is the lock. Nothing is ever written: no journal file,
    // nothing to recover after a crash. (Exclusive locking mode would keep a loser's read lock too,
    // and writers starting together could then all fail.)
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new LockError(refusal(dataDir, ownerFile));
    throw e;
  }
  const owner: Owner = { pid: process.pid, command, startedAt: new Date().toISOString() };
  const tmp = `${ownerFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(owner));
  renameSync(tmp, ownerFile);
  rmSync(join(dataDir, LEGACY_LOCK_FILE), { force: true });
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      // (The owner file first: once the lock is free, another writer may write its own.)
      if (readOwner(ownerFile)?.pid === process.pid) rmSync(ownerFile, { force: true });
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

function refusal(dataDir: string, ownerFile: string): string {
  const owner = readOwner(ownerFile);
  const who =
    owner && isAlive(owner.pid)
      ? `"trawl ${owner.command}" (pid ${owner.pid}, since ${owner.startedAt})`
      : 'another Trawl process (which one could not be read)';
  return `data directory ${dataDir} is in use by ${who}. Stop that process first, or pass another --data directory.`;
}

function readOwner(file: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Owner;
    return typeof o.pid === 'number' && typeof o.command === 'string' ? o : undefined;
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
