/**
 * Per-host politeness and fairness. Each host with queued URLs sits in a ring; the scheduler walks
 * the ring from where it stopped last (round-robin) and picks the first host that is ready: fewer
 * than `maxConnections` requests in flight, its delay since the last request elapsed, its robots.txt
 * known. A slow host therefore holds at most `maxConnections` workers, never all of them (LARM's
 * unsolved problem).
 */
import type { HostView } from '../../model/index.ts';

/** The perHost settings (config/schema.ts, where their defaults are). */
export type HostPolicy = {
  readonly maxConnections: number;
  readonly delayMs: number;
  /** Consecutive failures that suspend a host. */
  readonly suspendAfterErrors: number;
  /** How long a first suspension lasts; each next one lasts twice as long. */
  readonly suspendMs: number;
  /** Upper bound on a robots.txt Crawl-delay, in ms. */
  readonly maxCrawlDelayMs: number;
};

export type { HostView } from '../../model/index.ts';

type HostState = {
  inFlight: number;
  /** Earliest time the next request may start. */
  nextAt: number;
  /** Extra delay from robots.txt Crawl-delay, in ms. */
  crawlDelayMs: number;
  /** Consecutive failures; each doubles the delay (bounded). */
  errors: number;
  /** True while the host's robots.txt is being fetched: its URLs wait, other hosts do not. */
  waitingForRobots: boolean;
  suspendedUntil: number;
  suspensions: number;
  lastError: string | null;
  /** Times work was added (see workMark). */
  workAdded: number;
};

/** The longest a host's failures back its next request off (a suspension may last longer). */
const MAX_BACKOFF_MS = 5 * 60_000;
/** The first failure's back-off when the host's delay is shorter: a host without a delay is not hammered. */
const MIN_BACKOFF_MS = 500;

export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  private ring: string[] = [];
  private readonly inRing = new Set<string>();
  private cursor = 0;
  /** Many workers share the frontier: only the hosts this one holds a lease on take work (holdOnly). */
  private held: Set<string> | undefined;
  private onOther: ((host: string) => void) | undefined;

  constructor(private readonly policy: HostPolicy) {}

  /**
   * From now on only hosts held (hold()) take work: work found for any other host — links to it,
   * a seed, a recrawl — is told to `onOther`, for a claim of the shared frontier to take
   * (store/leases.ts), never fetched here without a lease.
   */
  holdOnly(onOther: (host: string) => void): void {
    this.held = new Set();
    this.onOther = onOther;
  }

  /** This worker holds the host's lease: its work may be taken here. */
  hold(host: string): void {
    this.held?.add(host);
  }

  /** The host's lease is given up or lost: out of the ring, and its later work goes to onOther. */
  drop(host: string): void {
    this.held?.delete(host);
    this.noWork(host);
  }

  /** Nothing of the host here: out of the ring, nothing in flight, its robots.txt not being loaded. */
  idle(host: string): boolean {
    const s = this.hosts.get(host);
    return !this.inRing.has(host) && (!s || (s.inFlight === 0 && !s.waitingForRobots));
  }

  /** The earliest time the host's next request may start (its delay, back-off, suspension). */
  readyAt(host: string): number {
    return this.hosts.get(host)?.nextAt ?? 0;
  }

  /** The host has queued URLs: put it in the ring. */
  addWork(host: string): void {
    if (this.held && !this.held.has(host)) {
      this.onOther?.(host);
      return;
    }
    this.state(host).workAdded++;
    if (this.inRing.has(host)) return;
    this.inRing.add(host);
    this.ring.push(host);
  }

  /**
   * How often work was added to the host: read it before asking the frontier for the host's next
   * URL, and pass it to noWork(), so that work added meanwhile (the frontier is asked
   * asynchronously) does not take the host out of the ring.
   */
  workMark(host: string): number {
    return this.state(host).workAdded;
  }

  /** The host's queue is empty (as of `mark`, from workMark, if given): take it out of the ring. */
  noWork(host: string, mark?: number): void {
    if (mark !== undefined && this.state(host).workAdded !== mark) return;
    if (!this.inRing.delete(host)) return;
    const i = this.ring.indexOf(host);
    this.ring.splice(i, 1);
    if (this.cursor > i) this.cursor--;
  }

  hasWork(): boolean {
    return this.ring.length > 0;
  }

  /** The next ready host in round-robin order, or undefined. */
  pick(now: number): string | undefined {
    for (let n = 0; n < this.ring.length; n++) {
      const i = (this.cursor + n) % this.ring.length;
      const host = this.ring[i]!;
      const s = this.state(host);
      if (s.waitingForRobots || s.inFlight >= this.policy.maxConnections || s.nextAt > now) continue;
      this.cursor = (i + 1) % this.ring.length;
      return host;
    }
    return undefined;
  }

  /** When the earliest host that is only waiting for its delay becomes ready (for a timer). */
  nextReadyAt(): number | undefined {
    let at: number | undefined;
    for (const host of this.ring) {
      const s = this.state(host);
      if (s.waitingForRobots || s.inFlight >= this.policy.maxConnections) continue;
      if (at === undefined || s.nextAt < at) at = s.nextAt;
    }
    return at;
  }

  begin(host: string): void {
    this.state(host).inFlight++;
  }

  /**
   * A request to `host` ended at `now`. `retryAfterMs` (from Retry-After on 429/503) pushes the next
   * request further out; failures back off exponentially.
   */
  end(host: string, now: number, result: { ok: boolean; retryAfterMs?: number | undefined; error?: string }): void {
    const s = this.state(host);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.errors = result.ok ? 0 : s.errors + 1;
    if (!result.ok && result.error) s.lastError = result.error;
    const base = Math.max(this.policy.delayMs, s.crawlDelayMs);
    const backoff = s.errors ? Math.min(MAX_BACKOFF_MS, Math.max(base, MIN_BACKOFF_MS) * 2 ** (s.errors - 1)) : base;
    s.nextAt = Math.max(s.nextAt, now + Math.max(backoff, result.retryAfterMs ?? 0));
    // A host that keeps failing is suspended (LARM dropped a host after 5 timeouts); each further
    // suspension lasts twice as long. The crawler gives a host up after a few.
    if (s.errors >= this.policy.suspendAfterErrors) {
      s.suspendedUntil = now + this.policy.suspendMs * 2 ** s.suspensions;
      s.suspensions++;
      s.errors = 0;
      s.nextAt = Math.max(s.nextAt, s.suspendedUntil);
    }
  }

  /** How often the host has been suspended. */
  suspensions(host: string): number {
    return this.state(host).suspensions;
  }

  /** Every host's politeness state, for the status page. */
  view(now: number): HostView[] {
    return [...this.hosts].map(([host, s]) => ({
      host,
      inFlight: s.inFlight,
      delayMs: Math.max(this.policy.delayMs, s.crawlDelayMs),
      errors: s.errors,
      waitingForRobots: s.waitingForRobots,
      suspendedUntil: s.suspendedUntil > now ? new Date(s.suspendedUntil).toISOString() : null,
      suspensions: s.suspensions,
      lastError: s.lastError,
    }));
  }

  setWaitingForRobots(host: string, waiting: boolean): void {
    this.state(host).waitingForRobots = waiting;
  }

  setCrawlDelay(host: string, seconds: number | undefined): void {
    this.state(host).crawlDelayMs = seconds ? Math.min(this.policy.maxCrawlDelayMs, seconds * 1000) : 0;
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) {
      s = { inFlight: 0, nextAt: 0, crawlDelayMs: 0, errors: 0, waitingForRobots: false, suspendedUntil: 0, suspensions: 0, lastError: null, workAdded: 0 };
      this.hosts.set(host, s);
    }
    return s;
  }
}
