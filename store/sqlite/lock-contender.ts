/**
 * A test helper (lock.test.ts): a process that tries to take a data directory's lock.
 *
 *   node --import tsx lock-contender.ts race HOLD_MS   prints `ready` once loaded, then for each line `DIR AT` read from
 *                                                  stdin (AT: ms since the epoch): at AT (racers start together),
 *                                                  take DIR's lock or not, hold it HOLD_MS, release, report; exits
 *                                                  at the end of stdin
 *   node --import tsx lock-contender.ts hold DIR    take it, report, and hold it until killed
 *
 * Reports are JSON lines on stdout: {pid, got, at, until?, message?}.
 */
import { createInterface } from 'node:readline';
import { acquireLock, type Lock, LockError } from './lock.ts';

const [mode, arg] = process.argv.slice(2) as [string, string];
const report = (r: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ pid: process.pid, ...r })}\n`);
const now = () => performance.timeOrigin + performance.now();

/** Tries once: a report, and the lock if it was taken. */
function attempt(dir: string, command: 'start' | 'crawl'): Lock | undefined {
  try {
    return acquireLock(dir, command);
  } catch (e) {
    if (!(e instanceof LockError)) throw e;
    report({ got: false, at: now(), message: e.message });
    return undefined;
  }
}

if (mode === 'hold') {
  if (attempt(arg, 'start')) {
    report({ got: true, at: now() });
    setInterval(() => undefined, 1000);
  }
} else {
  // One process for every trial (loading it costs more than a trial), told the moment once every
  // racer is loaded: racers started one after the other all try at the same moment.
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const [dir, startAt] = line.split(' ') as [string, string];
    while (now() < Number(startAt)) {
      /* wait for the start */
    }
    const lock = attempt(dir, 'crawl');
    if (!lock) continue;
    const at = now();
    const until = at + Number(arg);
    while (now() < until) {
      /* hold the lock for a while, busy: a holder that is working */
    }
    const end = now();
    lock.release();
    report({ got: true, at, until: end });
  }
}
