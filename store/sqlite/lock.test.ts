import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { acquireLock, LockError } from './lock.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-lock-'));

describe('the data directory lock', () => {
  it('refuses a second writer with a message that says who holds it', () => {
    const dir = tmp();
    // A live process (our parent) holds the lock.
    writeFileSync(join(dir, 'trawl.lock'), JSON.stringify({ pid: process.ppid, command: 'start', startedAt: '2026-01-01T00:00:00Z' }));
    assert.throws(() => acquireLock(dir, 'crawl'), (e: unknown) => e instanceof LockError && /in use by "trawl start" \(pid \d+/.test(e.message) && /another --data/.test(e.message));
  });

  it('takes over a stale lock whose process is gone, and releases it', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'trawl.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, command: 'start', startedAt: 'x' }));
    const lock = acquireLock(dir, 'crawl');
    assert.throws(() => acquireLock(dir, 'crawl'), LockError, 'held by this process now, so a second acquire is refused');
    lock.release();
    acquireLock(dir, 'crawl').release();
  });
});
