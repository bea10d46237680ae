/**
 * Host leases in SQLite. One process holds a SQLite store (the data directory's lock), so the
 * leases live in RAM: they order and share out hosts between the workers of this process exactly
 * as PostgreSQL's do between processes, and a restart, which queues every URL in flight again,
 * forgets them.
 */
import type { ClaimOptions, HostLease, LeaseStore, WorkerBeat, WorkerView } from '../leases.ts';
import type { Db } from './db.ts';
import type { SqliteHostStore } from './hosts.ts';
import type { UrlCounters } from './urls.ts';

export class SqliteLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, { worker: string; until: number }>();
  /** When each host was last claimed: the least recent first. */
  private readonly claimedAt = new Map<string, number>();
  /** Released hosts that may not be claimed before their politeness allows. */
  private readonly readyAt = new Map<string, number>();
  private readonly beats = new Map<string, WorkerView>();
  private readonly requeue;

  constructor(
    db: Db,
    private readonly hosts: SqliteHostStore,
    private readonly counters: UrlCounters,
  ) {
    this.requeue = db.prepare(`UPDATE urls SET state = 'queued', attempts = max(attempts - 1, 0) WHERE state = 'fetching' AND host = ?`);
  }

  /** Hosts under a lease, live or run out (recovery leaves their URLs to the leases). */
  leasedHosts(): string[] {
    return [...this.leases.keys()];
  }

  async claim(worker: string, { max, now, leaseMs, revisitsDueBy }: ClaimOptions): Promise<string[]> {
    const withWork = new Set([
      ...(await this.hosts.withWork()),
      ...(await this.hosts.withDueRetries(now)),
      ...(revisitsDueBy === undefined ? [] : await this.hosts.withDueRevisits(revisitsDueBy)),
    ]);
    const free = [...withWork].filter((h) => (this.leases.get(h)?.until ?? this.readyAt.get(h) ?? -Infinity) <= now);
    const order = (h: string) => this.claimedAt.get(h) ?? -Infinity;
    const claimed = free.sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1)).slice(0, Math.max(0, max));
    for (const host of claimed) {
      // Whatever is in flight there is orphaned (no live lease covered it).
      this.requeueInFlight(host);
      this.leases.set(host, { worker, until: now + leaseMs });
      this.claimedAt.set(host, now);
    }
    return claimed.sort();
  }

  async renew(worker: string, hosts: readonly string[], now: number, leaseMs: number): Promise<string[]> {
    const held = hosts.filter((h) => this.leases.get(h)?.worker === worker);
    for (const h of held) this.leases.set(h, { worker, until: now + leaseMs });
    return held;
  }

  async release(worker: string, hosts: readonly string[], readyAt?: ReadonlyMap<string, number>): Promise<void> {
    for (const h of hosts) {
      if (this.leases.get(h)?.worker !== worker) continue;
      this.leases.delete(h);
      const ready = readyAt?.get(h);
      if (ready === undefined) this.readyAt.delete(h);
      else this.readyAt.set(h, ready);
    }
  }

  async list(): Promise<HostLease[]> {
    return [...this.leases].map(([host, l]) => ({ host, worker: l.worker, expiresAt: l.until })).sort((a, b) => (a.host < b.host ? -1 : 1));
  }

  async heartbeat(b: WorkerBeat): Promise<void> {
    this.beats.set(b.id, {
      id: b.id,
      machine: b.machine,
      pid: b.pid,
      startedAt: b.startedAt,
      seenAt: b.now,
      hosts: b.hosts,
      pages: b.pages,
      pagesPerSecond: b.pagesPerSecond,
      stoppedAt: b.stopped ? b.now : null,
    });
  }

  async workers(since: number): Promise<WorkerView[]> {
    return [...this.beats.values()].filter((w) => w.seenAt >= since).sort((a, b) => b.seenAt - a.seenAt || (a.id < b.id ? -1 : 1));
  }

  async expire(now: number): Promise<{ hosts: string[]; requeued: number }> {
    const ended = [...this.leases]
      .filter(([, l]) => l.until <= now)
      .map(([h]) => h)
      .sort();
    let requeued = 0;
    for (const h of ended) {
      this.leases.delete(h);
      requeued += this.requeueInFlight(h);
    }
    return { hosts: ended, requeued };
  }

  async held(now: number): Promise<HostLease[]> {
    return [...this.leases]
      .filter(([, l]) => l.until > now)
      .map(([host, l]) => ({ host, worker: l.worker, expiresAt: l.until }))
      .sort((a, b) => (a.host < b.host ? -1 : 1));
  }

  private requeueInFlight(host: string): number {
    const n = this.requeue.run(host).changes;
    this.counters.move('fetching', 'queued', n);
    return n;
  }
}
