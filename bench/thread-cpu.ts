/**
 * CPU time by thread, for a one-run script (bench/crawl-once.ts): the main thread, each worker
 * thread the process starts (parse and document workers), and the rest (V8's compiler and GC
 * helpers, libuv's thread pool), from Linux's per-thread accounting (/proc/self/task/TID/schedstat:
 * nanoseconds on a CPU, and nanoseconds ready but waiting for one — what a loaded machine costs).
 *
 * Node 20 has no per-thread CPU figure and names every thread `node`, so each Worker's thread is
 * known by when it appears: `Worker` is wrapped (the product imports it from node:worker_threads;
 * syncBuiltinESMExports makes every importer see the wrapper), and the threads that the
 * constructor starts — it starts its thread before it returns — are that worker's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { Worker as WorkerType } from 'node:worker_threads';

export type ThreadTimes = { cpu: number; wait: number };
/** A worker's threads, and the file its code came from (the parse pool's page or document worker: extract-for-index.js, extract.js). */
export type WorkerThread = { tids: string[]; worker: WorkerType; file: string };

const tracked: WorkerThread[] = [];

/** From now on, every Worker created in this process is tracked. Call before anything starts one. */
export function trackWorkerThreads(): void {
  const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const Original = threads.Worker;
  threads.Worker = class TrackedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      const before = new Set(tasks());
      super(...args);
      tracked.push({ tids: tasks().filter((t) => !before.has(t)), worker: this, file: fileOf(args[0]) });
    }
  };
  syncBuiltinESMExports();
}

/** The last part of a worker's file or URL ("data:" for code given inline). */
function fileOf(code: unknown): string {
  const s = String(code);
  return s.startsWith('data:') ? 'data:' : s.replace(/[?#].*$/, '').replace(/^.*[\\/]/, '');
}

/** The threads of this process. */
function tasks(): string[] {
  return readdirSync('/proc/self/task');
}

/** A thread's CPU and run-queue wait so far, in seconds; undefined once it has exited, or where /proc has no schedstat. */
function schedstat(tid: string): ThreadTimes | undefined {
  try {
    const [cpu, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ').map(Number);
    return Number.isFinite(cpu) && Number.isFinite(wait) ? { cpu: cpu! / 1e9, wait: wait! / 1e9 } : undefined;
  } catch {
    return undefined;
  }
}

/** A thread's CPU and run-queue wait so far, in seconds (zero once it has exited). */
export function threadTimes(tid: string): ThreadTimes {
  return schedstat(tid) ?? { cpu: 0, wait: 0 };
}

/**
 * Milliseconds the main thread has spent runnable but waiting for a core, since it started (the
 * run-queue delay: the time on a core is only brought up to date at scheduler ticks, too coarse for
 * one query). On this shared 2-core machine a query's wall time also holds the time other
 * processes kept the thread from running; wall time minus this wait is the query's time with a
 * core whenever it could run (bench/index). Undefined where /proc has no schedstat.
 */
export function waitedForCoreMs(): number | undefined {
  const t = schedstat(String(process.pid));
  return t && t.wait * 1000;
}

/** The times of every thread now, and how busy each event loop has been. */
export type ThreadSnapshot = {
  readonly times: Map<string, ThreadTimes>;
  readonly main: EventLoopUtilization;
  readonly workers: Map<WorkerThread, EventLoopUtilization>;
};

export function snapshot(): ThreadSnapshot {
  return {
    times: new Map(tasks().map((t) => [t, threadTimes(t)])),
    main: performance.eventLoopUtilization(),
    workers: new Map(tracked.map((w) => [w, w.worker.performance.eventLoopUtilization()])),
  };
}

/** What each group of threads did between two snapshots. */
export type ThreadFigures = {
  /**
   * CPU and run-queue wait, seconds: the main thread (tid = pid), the workers' threads, the others
   * (those that exited counted in `other` by the process's total).
   */
  readonly main: ThreadTimes;
  readonly workers: ThreadTimes;
  /** The workers' CPU and wait by the file their code came from. */
  readonly workersByFile: Record<string, ThreadTimes>;
  readonly other: ThreadTimes;
  /** Workers started before `after` was taken (some may have exited). */
  readonly workerCount: number;
  /** Event-loop utilization (busy share) of the main thread, and of each worker alive at the end. */
  readonly mainBusy: number;
  readonly workersBusy: number[];
};

/** `processCpu`: the process's CPU seconds between the two snapshots (process.cpuUsage), which counts exited threads too. */
export function between(before: ThreadSnapshot, after: ThreadSnapshot, processCpu: number): ThreadFigures {
  const main = String(process.pid);
  const mine = new Set(tracked.flatMap((w) => w.tids));
  const zero = { cpu: 0, wait: 0 };
  const delta = (tid: string) => {
    const a = after.times.get(tid) ?? zero;
    const b = before.times.get(tid) ?? zero;
    return { cpu: a.cpu - b.cpu, wait: a.wait - b.wait };
  };
  const sum = (tids: string[]) => tids.map(delta).reduce((a, b) => ({ cpu: a.cpu + b.cpu, wait: a.wait + b.wait }), zero);
  const all = [...after.times.keys()];
  const m = sum([main]);
  const w = sum(all.filter((t) => mine.has(t)));
  const o = sum(all.filter((t) => t !== main && !mine.has(t)));
  const busy = (w: WorkerThread) => {
    const end = after.workers.get(w);
    if (!end) return undefined;
    const start = before.workers.get(w);
    return start ? w.worker.performance.eventLoopUtilization(end, start).utilization : end.utilization;
  };
  const workersByFile: Record<string, ThreadTimes> = {};
  for (const t of tracked) {
    // (A worker that exited is gone from /proc: its time is in `other`, by the process's total.)
    const s = sum(t.tids.filter((tid) => after.times.has(tid)));
    const acc = (workersByFile[t.file] ??= { cpu: 0, wait: 0 });
    acc.cpu += s.cpu;
    acc.wait += s.wait;
  }
  return {
    main: m,
    workers: w,
    workersByFile,
    other: { cpu: Math.max(o.cpu, processCpu - m.cpu - w.cpu), wait: o.wait },
    workerCount: tracked.length,
    mainBusy: performance.eventLoopUtilization(after.main, before.main).utilization,
    workersBusy: tracked.map(busy).filter((x): x is number => x !== undefined),
  };
}
