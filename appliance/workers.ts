/**
 * `trawl workers`: the crawlers of a shared store as they last told it (their heartbeats, at each
 * lease renewal), and the hosts each holds. A worker is `running` while it renews, `stale` once its
 * leases could have run out without a word from it (it died, or cannot reach the store: its hosts
 * go to others when their leases run out), `stopped` once it said so.
 */
import type { Config } from '../config/schema.ts';
import type { WorkerStatus } from '../model/index.ts';
import type { HostLease, Store, WorkerView } from '../store/index.ts';
import { openStore } from './open-store.ts';

export type WorkerState = 'running' | 'stale' | 'stopped';

export type WorkerLine = WorkerView & {
  readonly state: WorkerState;
  /** Hosts under its lease now, and those whose lease ran out unrenewed (a stale lease). */
  readonly held: readonly string[];
  readonly stale: readonly string[];
};

/** Workers heard from within this long are listed. */
const LISTED_MS = 86_400_000;

export async function listWorkers(config: Readonly<Config>, now = Date.now()): Promise<{ location: string; workers: WorkerLine[]; orphans: HostLease[] }> {
  const store = await openStore(config.store ?? config.dataDir, { readOnly: true, poolSize: 1, connectTimeoutMs: config.cluster.connectTimeoutMs });
  try {
    return { location: store.location, ...(await workersOf(store, config.cluster.leaseMs, now)) };
  } finally {
    await store.close();
  }
}

/** The workers of an open store, each with its state and hosts, and the leases of workers not heard from for a day. */
export async function workersOf(store: Store, leaseMs: number, now: number): Promise<{ workers: WorkerLine[]; orphans: HostLease[] }> {
  const [views, leases] = [await store.leases.workers(now - LISTED_MS), await store.leases.list()];
  const workers = views.map((w): WorkerLine => {
    const mine = leases.filter((l) => l.worker === w.id);
    const state: WorkerState = w.stoppedAt !== null ? 'stopped' : now - w.seenAt > leaseMs ? 'stale' : 'running';
    return { ...w, state, held: mine.filter((l) => l.expiresAt > now).map((l) => l.host), stale: mine.filter((l) => l.expiresAt <= now).map((l) => l.host) };
  });
  // (Leases of a worker no longer listed: held by a process that has not been heard from for a day.)
  const known = new Set(views.map((w) => w.id));
  return { workers, orphans: leases.filter((l) => !known.has(l.worker)) };
}

/** A worker as /api/status and the dashboard show it. */
export function workerStatus(w: WorkerLine): WorkerStatus {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: w.id,
    machine: w.machine,
    pid: w.pid,
    state: w.state,
    hosts: w.held.length,
    staleHosts: w.stale.length,
    pages: w.pages,
    pagesPerSecond: w.pagesPerSecond,
    startedAt: iso(w.startedAt),
    seenAt: iso(w.seenAt),
  };
}
