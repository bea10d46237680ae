/**
 * A test helper (lock.test.ts): a process that tries to take a data directory's lock.
 *
 *   node --import tsx lock-contender.ts DIR race HOLD_MS AT   at the time AT (ms since the epoch: racers start
 *                                                            together), take it or not, hold it HOLD_MS, release, report, exit
 *   node --import tsx lock-contender.ts DIR hold           take it, report, and hold it until killed
 *
 * Reports are JSON lines on stdout: {pid, got, at, until?, message?}.
 */
import { acquireLock, type Lock, LockError } from './lock.ts';

const [dir, mode, holdMs, startAt] = process.argv.slice(2) as [string, string, string | undefined, string | undefined];
const report = (r: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ pid: process.pid, ...r })}\n`);
const now = () => performance.timeOrigin + performance.now();
// Racers started one after the other all try at the same moment.
while (startAt && now() < Number(startAt)) {
  /* wait for the start */
}
let lock: Lock;
try {
  lock = acquireLock(dir, mode === 'hold' ? 'start' : 'crawl');
} catch (e) {
  if (!(e instanceof LockError)) throw e;
  report({ got: false, at: now(), message: e.message });
  process.exit(0);
}
const at = now();
if (mode === 'hold') {
  report({ got: true, at });
  setInterval(() => undefined, 1000);
} else {
  const until = at + Number(holdMs ?? 50);
  while (now() < until) {
    /* hold the lock for a while, busy: a holder that is working */
  }
  const end = now();
  lock.release();
  report({ got: true, at, until: end });
}
