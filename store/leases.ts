/**
 * Host leases: how many crawler processes share one frontier and stay polite (issue 22). Work is
 * handed out by host, not by URL: a worker claims hosts that have work, and while its lease on a
 * host lasts it alone fetches from that host — so per-host connections, delays and robots.txt hold
 * across all workers, as they do inside one. A worker renews its leases while it works and releases
 * a host it is done with; a worker that dies simply stops renewing, and when its leases run out the
 * URLs it had in flight there go back to the queue, for whoever claims the host next.
 *
 * Times are the callers' clocks (like every `now` of the store): workers on several machines need
 * clocks that agree to well within a lease (NTP does).
 */

/** A host held by a worker until `expiresAt`. */
export type HostLease = { readonly host: string; readonly worker: string; readonly expiresAt: number };

/** What a worker says of itself at each renewal (its heartbeat), for `trawl workers` and the dashboard. */
export type WorkerBeat = {
  readonly id: string;
  /** The machine it runs on (its host name). */
  readonly machine: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly now: number;
  /** Hosts it holds now. */
  readonly hosts: number;
  /** Requests completed since it started, and per second lately. */
  readonly pages: number;
  readonly pagesPerSecond: number;
  /** It stopped (gracefully): its leases are released. */
  readonly stopped?: boolean;
};

/** A worker as last heard from. */
export type WorkerView = Omit<WorkerBeat, 'now' | 'stopped'> & { readonly seenAt: number; readonly stoppedAt: number | null };

export type ClaimOptions = {
  /** Hosts to claim at most. */
  readonly max: number;
  readonly now: number;
  /** How long the leases last from `now`. */
  readonly leaseMs: number;
  /** Hosts with a page whose revisit is due by then have work too (unset: revisits do not count). */
  readonly revisitsDueBy?: number;
};

export interface LeaseStore {
  /**
   * Claims for `worker` up to `max` hosts that have work — queued URLs, a failed URL due again, a
   * page due for a revisit — and that no live lease holds, least recently claimed first. A host
   * whose lease had run out is taken over: the URLs left in flight there are queued again (their
   * attempt not counted). Two workers claiming at once never get the same host. Returns the hosts.
   */
  claim(worker: string, options: ClaimOptions): Promise<string[]>;
  /**
   * Extends `worker`'s leases on these hosts to `now + leaseMs`. Returns the hosts it still held;
   * one missing was lost (its lease ran out and it was released or claimed by another): the worker
   * must take no more URLs there.
   */
  renew(worker: string, hosts: readonly string[], now: number, leaseMs: number): Promise<string[]>;
  /**
   * Gives up `worker`'s leases on these hosts (its URLs there finished or put back): anyone may
   * claim them — at once, or, for a host in `readyAt`, from that time on (when its politeness
   * allows the next request: another worker must not fetch there sooner than this one would have).
   */
  release(worker: string, hosts: readonly string[], readyAt?: ReadonlyMap<string, number>): Promise<void>;
  /** Ends every lease that ran out by `now`, queuing again the URLs left in flight on its host. Returns those hosts and how many URLs. */
  expire(now: number): Promise<{ hosts: string[]; requeued: number }>;
  /** The leases that last beyond `now`, by host. */
  held(now: number): Promise<HostLease[]>;
  /** Every lease not released nor expired yet, by host — those that ran out too (stale: their worker stopped renewing). */
  list(): Promise<HostLease[]>;
  /** Records a worker's heartbeat. */
  heartbeat(beat: WorkerBeat): Promise<void>;
  /** The workers heard from since `since`, the most recent first. */
  workers(since: number): Promise<WorkerView[]>;
}
