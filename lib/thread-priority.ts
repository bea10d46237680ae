/**
 * The priority of the calling thread. On a machine with fewer cores than busy threads, the main
 * thread — which answers searches and is the crawl's own bottleneck (it stores and indexes every
 * page) — waited for a CPU behind the parse workers: a search took 1.6× its idle time while the
 * crawl ran (bench/search-while-crawling). Linux gives each thread its own nice value (setpriority
 * on a thread id changes that thread alone), so a worker lowers its own and runs on what the main
 * thread leaves: no work is lost, only who waits when both want a core.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The nice value pool workers give themselves (0 is the default, 19 the lowest). At 10, Linux's
 * scheduler weighs such a thread ~1/10 of a thread at 0: the main thread gets a contended core
 * first, and the workers still run whenever it does not want one.
 */
export const WORKER_NICENESS = 10;

/**
 * Lowers the calling thread's priority to `niceness` (Linux only: elsewhere a nice value is the
 * whole process's, and lowering it would slow the main thread too). Answers whether it was done.
 */
export function lowerThisThread(niceness: number = WORKER_NICENESS): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // (/proc/thread-self names the calling thread: "<pid>/task/<tid>".)
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    // (No /proc, or a sandbox that refuses: the thread keeps its priority, which only costs speed.)
    return false;
  }
}

/** The nice value of thread `tid` of this process (Linux), from /proc: for tests and benches. */
export function threadNiceness(tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // (Fields after the command's closing parenthesis: state is the 3rd field, nice the 19th.)
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return undefined;
  }
}
