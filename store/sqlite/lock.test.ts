// The data directory's writer lock, with real processes racing for it and dying while they hold it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { acquireLock, LockError } from './lock.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-lock-'));
const CONTENDER = new URL('./lock-contender.ts', import.meta.url).pathname;

type Report = { pid: number; got: boolean; at: number; until?: number; message?: string };

/**
 * Starts a contender (`hold DIR`, or `race HOLD_MS`): `ready` resolves once it is loaded, `next()`
 * with its next report; a racer tries a directory's lock at each `race(dir, at)`.
 */
function contender(...args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CONTENDER, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const reports: Report[] = [];
  const waiting: { resolve: (r: Report) => void; reject: (e: Error) => void }[] = [];
  let exitCode: number | null | undefined;
  let ready!: () => void;
  const loaded = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'ready') return ready();
    const r = JSON.parse(line) as Report;
    const w = waiting.shift();
    if (w) w.resolve(r);
    else reports.push(r);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      for (const w of waiting.splice(0)) w.reject(new Error(`contender exited (${code}) without a report`));
      resolve();
    }),
  );
  const next = () =>
    new Promise<Report>((resolve, reject) => {
      const r = reports.shift();
      if (r) resolve(r);
      else if (exitCode !== undefined) reject(new Error(`contender exited (${exitCode}) without a report`));
      else waiting.push({ resolve, reject });
    });
  /** A racer tries `dir`'s lock at `at` (ms since the epoch). */
  const race = (dir: string, at: number) => child.stdin!.write(`${dir} ${at}\n`);
  return { child, ready: loaded, next, exited, race };
}

describe('the data directory lock', () => {
  it('refuses a second writer with a message that says who holds it', async () => {
    const dir = tmp();
    const holder = contender('hold', dir);
    try {
      assert.equal((await holder.next()).got, true);
      assert.throws(
        () => acquireLock(dir, 'crawl'),
        (e: unknown) =>
          e instanceof LockError &&
          new RegExp(`in use by "trawl start" \\(pid ${holder.child.pid}, since `).test(e.message) &&
          /another --data/.test(e.message),
      );
    } finally {
      holder.child.kill('SIGKILL');
      await holder.exited;
    }
  });

  it('is never held by two processes at once: six racing, twelve times (regression: 2–3 holders at once)', async () => {
    const racers = Array.from({ length: 6 }, () => contender('race', '300'));
    try {
      await Promise.all(racers.map((r) => Promise.race([r.ready, r.exited.then(() => assert.fail('a racer exited before it was ready'))])));
      for (let trial = 0; trial < 12; trial++) {
        const dir = tmp();
        // A lock file left by an older Trawl, naming a process that is gone: it must not decide anything.
        writeFileSync(join(dir, 'trawl.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, command: 'start', startedAt: 'x' }));
        // (50 ms ahead: the six lines reach them well before, and each spins until then.)
        const at = Date.now() + 50;
        for (const r of racers) r.race(dir, at);
        const reports = await Promise.all(racers.map((r) => r.next()));
        const holders = reports.filter((r) => r.got);
        assert.ok(holders.length >= 1, `trial ${trial}: someone got it`);
        // No two holders' spans overlap (each process's clock is read from its own time origin: a
        // millisecond of slack; the holds last 300 ms).
        const spans = holders.map((h) => [h.at, h.until!] as const).sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++) assert.ok(spans[i]![0] >= spans[i - 1]![1] - 1, `trial ${trial}: two holders at once: ${JSON.stringify(spans)}`);
        for (const r of reports.filter((x) => !x.got)) assert.match(r.message!, /is in use by/);
      }
    } finally {
      for (const r of racers) r.child.stdin!.end();
      await Promise.all(racers.map((r) => r.exited));
    }
  });

  it('is free at once when its holder is killed (kill -9)', async () => {
    const dir = tmp();
    const holder = contender('hold', dir);
    assert.equal((await holder.next()).got, true);
    holder.child.kill('SIGKILL');
    await holder.exited;
    const lock = acquireLock(dir, 'crawl');
    lock.release();
  });

  it('is not blocked by a leftover naming a live process that holds nothing (regression: PID 1 in a container)', () => {
    const dir = tmp();
    for (const pid of [1, process.ppid]) {
      writeFileSync(join(dir, 'trawl.lock'), JSON.stringify({ pid, command: 'start', startedAt: '2026-01-01T00:00:00Z' }));
      writeFileSync(join(dir, 'writer.lock.owner'), JSON.stringify({ pid, command: 'start', startedAt: '2026-01-01T00:00:00Z' }));
      const lock = acquireLock(dir, 'crawl');
      lock.release();
      assert.equal(existsSync(join(dir, 'trawl.lock')), false, 'an older Trawl\u2019s lock file is removed');
    }
  });

  it('is refused to a second taker in the same process, released once, and taken again', () => {
    const dir = tmp();
    const lock = acquireLock(dir, 'crawl');
    assert.throws(
      () => acquireLock(dir, 'start'),
      (e: unknown) => e instanceof LockError && new RegExp(`pid ${process.pid}`).test(e.message),
    );
    lock.release();
    lock.release();
    assert.equal(existsSync(join(dir, 'writer.lock.owner')), false, 'the owner file goes with the lock');
    acquireLock(dir, 'crawl').release();
  });
});
