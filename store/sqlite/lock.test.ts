// The data directory's writer lock, with real processes racing for it and dying while they hold it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { acquireLock, LockError } from './lock.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-lock-'));
const CONTENDER = new URL('./lock-contender.ts', import.meta.url).pathname;

type Report = { pid: number; got: boolean; at: number; until?: number; message?: string };

/** Starts a contender; resolves with its first report (and the process, to kill). */
function contender(dir: string, ...args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CONTENDER, dir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const first = new Promise<Report>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line) as Report);
    });
    child.once('exit', (code) => (out.includes('\n') ? undefined : reject(new Error(`contender exited (${code}) without a report`))));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, first, exited };
}

describe('the data directory lock', () => {
  it('refuses a second writer with a message that says who holds it', async () => {
    const dir = tmp();
    const holder = contender(dir, 'hold');
    try {
      assert.equal((await holder.first).got, true);
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
    for (let trial = 0; trial < 12; trial++) {
      const dir = tmp();
      // A lock file left by an older Trawl, naming a process that is gone: it must not decide anything.
      writeFileSync(join(dir, 'trawl.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, command: 'start', startedAt: 'x' }));
      const startAt = String(Date.now() + 2500);
      const racers = Array.from({ length: 6 }, () => contender(dir, 'race', '300', startAt));
      const reports = await Promise.all(racers.map((r) => r.first));
      await Promise.all(racers.map((r) => r.exited));
      const holders = reports.filter((r) => r.got);
      assert.ok(holders.length >= 1, `trial ${trial}: someone got it`);
      // No two holders' spans overlap (each process's clock is read from its own time origin: a
      // millisecond of slack; the holds last 300 ms).
      const spans = holders.map((h) => [h.at, h.until!] as const).sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++) assert.ok(spans[i]![0] >= spans[i - 1]![1] - 1, `trial ${trial}: two holders at once: ${JSON.stringify(spans)}`);
      for (const r of reports.filter((x) => !x.got)) assert.match(r.message!, /is in use by/);
    }
  });

  it('is free at once when its holder is killed (kill -9)', async () => {
    const dir = tmp();
    const holder = contender(dir, 'hold');
    assert.equal((await holder.first).got, true);
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
