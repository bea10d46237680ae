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
  /** Gives up `worker`'s leases on these hosts (its URLs there finished or put back): anyone may claim them at once. */
  release(worker: string, hosts: readonly string[]): Promise<void>;
  /** Ends every lease that ran out by `now`, queuing again the URLs left in flight on its host. Returns those hosts and how many URLs. */
  expire(now: number): Promise<{ hosts: string[]; requeued: number }>;
  /** The leases that last beyond `now`, by host. */
  held(now: number): Promise<HostLease[]>;
}
