/**
 * Per-host politeness and fairness. Each host with queued URLs sits in a ring; the scheduler walks
 * the ring from where it stopped last (round-robin) and picks the first host that is ready: fewer
 * than `maxConnections` requests in flight, its delay since the last request elapsed, its robots.txt
 * known. A slow host therefore holds at most `maxConnections` workers, never all of them (LARM's
 * unsolved problem).
 */

export type HostPolicy = { readonly maxConnections: number; readonly delayMs: number };

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
};

const MAX_BACKOFF_MS = 5 * 60_000;
const MAX_CRAWL_DELAY_MS = 60_000;

export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  private ring: string[] = [];
  private readonly inRing = new Set<string>();
  private cursor = 0;

  constructor(private readonly policy: HostPolicy) {}

  /** The host has queued URLs: put it in the ring. */
  addWork(host: string): void {
    this.state(host);
    if (this.inRing.has(host)) return;
    this.inRing.add(host);
    this.ring.push(host);
  }

  /** The host's queue is empty: take it out of the ring. */
  noWork(host: string): void {
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
  end(host: string, now: number, result: { ok: boolean; retryAfterMs?: number | undefined }): void {
    const s = this.state(host);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.errors = result.ok ? 0 : s.errors + 1;
    const base = Math.max(this.policy.delayMs, s.crawlDelayMs);
    const backoff = s.errors ? Math.min(MAX_BACKOFF_MS, Math.max(base, 500) * 2 ** (s.errors - 1)) : base;
    s.nextAt = Math.max(s.nextAt, now + Math.max(backoff, result.retryAfterMs ?? 0));
  }

  setWaitingForRobots(host: string, waiting: boolean): void {
    this.state(host).waitingForRobots = waiting;
  }

  setCrawlDelay(host: string, seconds: number | undefined): void {
    this.state(host).crawlDelayMs = seconds ? Math.min(MAX_CRAWL_DELAY_MS, seconds * 1000) : 0;
  }

  inFlight(): number {
    let n = 0;
    for (const s of this.hosts.values()) n += s.inFlight;
    return n;
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) {
      s = { inFlight: 0, nextAt: 0, crawlDelayMs: 0, errors: 0, waitingForRobots: false };
      this.hosts.set(host, s);
    }
    return s;
  }
}
