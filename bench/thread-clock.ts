/**
 * How long the main thread waited for a core (Linux): the run-queue delay of
 * /proc/self/task/<pid>/schedstat (its second field, nanoseconds; the first, time on a core, is
 * only brought up to date at scheduler ticks, too coarse for one query). On this shared 2-core
 * machine a query's wall time also holds the time other processes (and the bench's own feed
 * worker) kept the thread from running; wall time minus this wait is the query's time with a core
 * whenever it could run. Undefined where /proc has no schedstat.
 */
import { readFileSync } from 'node:fs';

const PATH = `/proc/self/task/${process.pid}/schedstat`;

/** Milliseconds the main thread has spent runnable but waiting for a core, since it started. */
export function waitedForCoreMs(): number | undefined {
  try {
    const wait = Number(readFileSync(PATH, 'utf8').split(' ')[1]);
    return Number.isFinite(wait) ? wait / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
