/**
 * A worker's side of the shared frontier (issue 22): when many crawler processes share one store,
 * each fetches only from the hosts it holds a lease on (store/leases.ts). This claims ready hosts
 * as the worker has room for them, renews its leases every third of a lease (a heartbeat for
 * `trawl workers` with it), drops the hosts whose lease it lost, and releases a host it has
 * nothing left to do on — with the time its politeness allows the next request there, so that the
 * next worker to claim it waits as this one would have. The scheduler only ever sees held hosts.
 * The leased frontier (leased-frontier.ts) drives it.
 */
import type { Log } from '../../../lib/log.ts';
import type { Store } from '../../../store/index.ts';
import type { HostUrls } from '../host-urls.ts';
import type { HostScheduler } from '../hosts.ts';

/** How a worker shares the frontier (absent: the store is the process's own, no leases). */
export type SharedFrontier = {
  /** This worker's name: unique among the workers of the store (a new one each run). */
  readonly worker: string;
  /** The machine's name and the process, for `trawl workers`. */
  readonly machine: string;
  readonly pid: number;
  /** How long a lease lasts unless renewed (renewed every third of it). */
  readonly leaseMs: number;
  /** Hosts held at most at once. */
  readonly maxHosts: number;
  /**
   * Keep looking for work when there is none (`trawl worker`), instead of ending the crawl once
   * nothing is left for this worker nor held by another (`trawl crawl`).
   */
  readonly untilStopped?: boolean;
};

/** The least time between two claims, and the time after a claim that found less than it asked for. */
const CLAIM_MIN_MS = 200;
const CLAIM_IDLE_MS = 1000;
/** Leases are renewed every third of a lease, but no more often than this. */
const MIN_RENEW_EVERY_MS = 100;

export class WorkerLeases {
  /** The hosts this worker holds. */
  readonly held = new Set<string>();
  private nextClaimAt = 0;
  private renewTimer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private readonly startedAt: number;

  constructor(
    private readonly store: Store,
    private readonly scheduler: HostScheduler,
    private readonly frontier: HostUrls,
    readonly shared: SharedFrontier,
    private readonly now: () => number,
    private readonly figures: () => { pages: number; pagesPerSecond: number },
    private readonly log: Log | undefined,
    /** Work for a host this worker does not hold arrived: it may be claimed soon. */
    private readonly wake: () => void,
  ) {
    this.startedAt = now();
    frontier.share();
    scheduler.holdOnly(() => {
      this.nextClaimAt = Math.min(this.nextClaimAt, this.now() + CLAIM_MIN_MS);
      this.wake();
    });
  }

  /** Starts renewing (and heartbeats); recovers what leases that ran out left in flight. */
  async start(): Promise<void> {
    await this.store.leases.expire(this.now());
    await this.beat();
    clearInterval(this.renewTimer);
    this.renewTimer = setInterval(
      () => {
        this.renewing ??= this.renew()
          .catch((e: unknown) => this.log?.warn(`leases could not be renewed (retrying): ${(e as Error).message}`))
          .finally(() => (this.renewing = undefined));
      },
      Math.max(MIN_RENEW_EVERY_MS, Math.floor(this.shared.leaseMs / 3)),
    );
    this.renewTimer.unref();
  }

  /** True when the worker has room for more hosts. */
  get room(): number {
    return Math.max(0, this.shared.maxHosts - this.held.size);
  }

  /** When a claim may run next (undefined: no room). */
  claimAt(): number | undefined {
    return this.room ? this.nextClaimAt : undefined;
  }

  /**
   * Claims hosts with work, as many as there is room for, unless a claim ran too recently. Returns
   * how many hosts it got (each goes to the scheduler with its work).
   */
  async claim(revisitsDueBy: number | undefined, force = false): Promise<number> {
    const now = this.now();
    const max = this.room;
    if (!max || (!force && now < this.nextClaimAt)) return 0;
    const hosts = await this.store.leases.claim(this.shared.worker, {
      max,
      now,
      leaseMs: this.shared.leaseMs,
      ...(revisitsDueBy !== undefined ? { revisitsDueBy } : {}),
    });
    for (const host of hosts) {
      this.held.add(host);
      this.scheduler.hold(host);
      this.scheduler.addWork(host);
    }
    this.nextClaimAt = now + (hosts.length < max ? CLAIM_IDLE_MS : CLAIM_MIN_MS);
    return hosts.length;
  }

  /** Gives up hosts this worker is done with, each claimable once its politeness allows. */
  async release(hosts: readonly string[]): Promise<void> {
    if (!hosts.length) return;
    const readyAt = new Map(hosts.map((h) => [h, this.scheduler.readyAt(h)]));
    for (const host of hosts) {
      this.held.delete(host);
      this.scheduler.drop(host);
    }
    // (Back to the queue before the hosts are free: whoever claims them next finds them there.)
    await this.frontier.giveBack(hosts);
    await this.store.leases.release(this.shared.worker, hosts, readyAt);
  }

  /** True when another worker holds a host (its work may yet bring more, or come back to the queue). */
  async othersHoldHosts(): Promise<boolean> {
    const now = this.now();
    await this.store.leases.expire(now);
    return (await this.store.leases.held(now)).some((l) => l.worker !== this.shared.worker);
  }

  /** Stops renewing and releases every host (the worker's URLs there are finished or put back). */
  async stop(): Promise<void> {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    await this.renewing;
    await this.release([...this.held]);
    await this.beat(true).catch(() => undefined);
  }

  /** Extends the leases held; a host whose lease was lost leaves the scheduler. */
  private async renew(): Promise<void> {
    const now = this.now();
    const mine = [...this.held];
    const kept = new Set(await this.store.leases.renew(this.shared.worker, mine, now, this.shared.leaseMs));
    for (const host of mine) {
      if (kept.has(host) || !this.held.has(host)) continue;
      this.log?.warn(`lease on ${host} lost (it ran out before it was renewed): another worker may take the host over`);
      this.held.delete(host);
      this.scheduler.drop(host);
      this.frontier.forget(host);
    }
    // (Leases of workers that died: their URLs in flight go back to the queue for anyone to claim.)
    await this.store.leases.expire(now);
    await this.beat();
    await this.frontier.refresh();
  }

  private async beat(stopped = false): Promise<void> {
    const f = this.figures();
    await this.store.leases.heartbeat({
      id: this.shared.worker,
      machine: this.shared.machine,
      pid: this.shared.pid,
      startedAt: this.startedAt,
      now: this.now(),
      hosts: this.held.size,
      pages: f.pages,
      pagesPerSecond: f.pagesPerSecond,
      ...(stopped ? { stopped } : {}),
    });
  }
}
