/**
 * The frontier and the URL-seen test, both in SQLite: a URL is queued once in its life (the UNIQUE
 * normalized URL is the seen-set), and each host's queue is read breadth-first (lowest depth, then
 * oldest) through a partial index. Only counters live in RAM, so memory stays flat however large
 * the frontier grows.
 */
import type { Db } from '../../store/db.ts';
import type { UrlRecord, UrlState } from '../../store/types.ts';

export type QueuedUrl = {
  readonly id: number;
  /** The URL's identity (normalized). */
  readonly url: string;
  /** What to request: the identity, or the milder form it was found as (see crawler/urls/normalize.ts). */
  readonly fetchUrl: string;
  readonly host: string;
  readonly depth: number;
  readonly hops: number;
  readonly attempts: number;
};

/** How a fetch of a queued URL ended; decides the record's next state. */
export type Outcome =
  | { readonly kind: 'fetched'; readonly status: number }
  | { readonly kind: 'failed'; readonly status?: number; readonly reason: string }
  | { readonly kind: 'redirected'; readonly status: number; readonly to: string }
  | { readonly kind: 'excluded'; readonly status?: number; readonly reason: string };

export type FrontierCounts = Record<UrlState, number>;

const STATES: UrlState[] = ['queued', 'fetching', 'fetched', 'failed', 'redirected', 'excluded'];

type Row = {
  id: number;
  url: string;
  host: string;
  depth: number;
  state: UrlState;
  reason: string | null;
  http_status: number | null;
  hops: number;
  attempts: number;
  discovered_at: number;
  fetched_at: number | null;
  lastmod: string | null;
};

export class Frontier {
  private readonly stmts;
  private readonly counters: FrontierCounts;
  /** URLs per host (for limits.maxPagesPerHost): one number per host, not per URL. */
  private readonly perHost = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO urls (url, fetch_url, host, depth, state, hops, discovered_at) VALUES (?, ?, ?, ?, 'queued', ?, ?) ON CONFLICT(url) DO NOTHING`),
      next: db.prepare(`SELECT id, url, coalesce(fetch_url, url) AS fetchUrl, host, depth, hops, attempts FROM urls WHERE host = ? AND state = 'queued' ORDER BY depth, id LIMIT 1`),
      hostCounts: db.prepare(`SELECT host, count(*) AS n FROM urls GROUP BY host`),
      lastmod: db.prepare(`UPDATE urls SET lastmod = ? WHERE url = ?`),
      markFetching: db.prepare(`UPDATE urls SET state = 'fetching', attempts = attempts + 1 WHERE id = ?`),
      finish: db.prepare(`UPDATE urls SET state = ?, reason = ?, http_status = ?, fetched_at = ? WHERE id = ?`),
      putBack: db.prepare(`UPDATE urls SET state = 'queued', attempts = max(attempts - 1, 0) WHERE id = ? AND state = 'fetching'`),
      recover: db.prepare(`UPDATE urls SET state = 'queued' WHERE state = 'fetching'`),
      hosts: db.prepare(`SELECT DISTINCT host FROM urls WHERE state = 'queued'`),
      counts: db.prepare(`SELECT state, count(*) AS n FROM urls GROUP BY state`),
      byUrl: db.prepare(`SELECT * FROM urls WHERE url = ?`),
      addSeed: db.prepare(`INSERT INTO seeds (url, added_at) VALUES (?, ?) ON CONFLICT(url) DO NOTHING`),
      seeds: db.prepare(`SELECT url FROM seeds ORDER BY added_at, url`),
      reject: db.prepare(`INSERT INTO rejections (reason, count) VALUES (?, ?) ON CONFLICT(reason) DO UPDATE SET count = count + ?`),
      requeue: db.prepare(`UPDATE urls SET state = 'queued' WHERE id = ? AND state = 'fetching'`),
      failHost: db.prepare(`UPDATE urls SET state = 'failed', reason = ?, fetched_at = ? WHERE host = ? AND state = 'queued'`),
      rejections: db.prepare(`SELECT reason, count FROM rejections ORDER BY count DESC`),
    };
    this.counters = Object.fromEntries(STATES.map((s) => [s, 0])) as FrontierCounts;
    for (const { state, n } of this.stmts.counts.all() as { state: UrlState; n: number }[]) this.counters[state] = n;
    for (const { host, n } of this.stmts.hostCounts.all() as { host: string; n: number }[]) this.perHost.set(host, n);
  }

  /**
   * Queues a normalized URL unless it was ever seen. `fetchUrl` is what will be requested, when it
   * differs from the identity `url`. Returns true when the URL is new.
   */
  enqueue(url: string, depth: number, hops = 0, fetchUrl?: string, lastmod?: string): boolean {
    const host = new URL(url).host;
    const added = this.stmts.insert.run(url, fetchUrl && fetchUrl !== url ? fetchUrl : null, host, depth, hops, this.now()).changes === 1;
    // A sitemap's <lastmod> is kept whether the URL is new or not: recrawl scheduling reads it.
    if (lastmod) this.stmts.lastmod.run(lastmod.slice(0, 40), url);
    if (added) {
      this.counters.queued++;
      this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    }
    return added;
  }

  /** How many URLs of `host` were ever queued. */
  urlsOfHost(host: string): number {
    return this.perHost.get(host) ?? 0;
  }

  /**
   * Queues many URLs, and counts the rejections of those that were not admitted, in one
   * transaction. Returns the hosts that received new URLs.
   */
  enqueueMany(items: readonly { url: string; depth: number; hops?: number; fetchUrl?: string; lastmod?: string }[], rejected: ReadonlyMap<string, number> = new Map()): Set<string> {
    const hosts = new Set<string>();
    this.db.transaction(() => {
      for (const it of items) if (this.enqueue(it.url, it.depth, it.hops ?? 0, it.fetchUrl, it.lastmod)) hosts.add(new URL(it.url).host);
      for (const [reason, n] of rejected) this.stmts.reject.run(reason, n, n);
    })();
    return hosts;
  }

  /** Takes the next URL of `host` (breadth-first) and marks it in flight. */
  next(host: string): QueuedUrl | undefined {
    const row = this.stmts.next.get(host) as QueuedUrl | undefined;
    if (!row) return undefined;
    this.stmts.markFetching.run(row.id);
    this.move('queued', 'fetching');
    return { ...row, attempts: row.attempts + 1 };
  }

  finish(id: number, outcome: Outcome): void {
    const reason = outcome.kind === 'redirected' ? outcome.to : outcome.kind === 'failed' || outcome.kind === 'excluded' ? outcome.reason : null;
    const status = 'status' in outcome ? (outcome.status ?? null) : null;
    this.stmts.finish.run(outcome.kind, reason, status, this.now(), id);
    this.move('fetching', outcome.kind);
  }

  /** Returns an in-flight URL to the queue (a graceful stop, or a host that is not ready after all). */
  putBack(id: number): void {
    if (this.stmts.putBack.run(id).changes === 1) this.move('fetching', 'queued');
  }

  /** After a crash, URLs left in flight are queued again. Returns how many. */
  recoverInFlight(): number {
    const n = this.stmts.recover.run().changes;
    this.counters.queued += n;
    this.counters.fetching = 0;
    return n;
  }

  hostsWithWork(): string[] {
    return (this.stmts.hosts.all() as { host: string }[]).map((r) => r.host);
  }

  counts(): Readonly<FrontierCounts> {
    return { ...this.counters };
  }

  record(url: string): UrlRecord | undefined {
    const r = this.stmts.byUrl.get(url) as Row | undefined;
    if (!r) return undefined;
    return {
      id: r.id,
      url: r.url,
      host: r.host,
      depth: r.depth,
      state: r.state,
      reason: r.reason,
      httpStatus: r.http_status,
      attempts: r.attempts,
      discoveredAt: r.discovered_at,
      fetchedAt: r.fetched_at,
      lastmod: r.lastmod,
    };
  }

  addSeeds(urls: readonly string[]): void {
    this.db.transaction(() => {
      for (const u of urls) this.stmts.addSeed.run(u, this.now());
    })();
  }

  seeds(): string[] {
    return (this.stmts.seeds.all() as { url: string }[]).map((r) => r.url);
  }

  countRejection(reason: string): void {
    this.stmts.reject.run(reason, 1, 1);
  }

  /** Queues an in-flight URL again for a later attempt (its attempt is kept: retries are bounded). */
  requeue(id: number): void {
    if (this.stmts.requeue.run(id).changes === 1) this.move('fetching', 'queued');
  }

  /** Marks every queued URL of a host failed (a host given up on). Returns how many. */
  failHost(host: string, reason: string): number {
    const n = this.stmts.failHost.run(reason, this.now(), host).changes;
    this.counters.queued -= n;
    this.counters.failed += n;
    return n;
  }

  rejections(): { reason: string; count: number }[] {
    return this.stmts.rejections.all() as { reason: string; count: number }[];
  }

  private move(from: UrlState, to: UrlState): void {
    this.counters[from]--;
    this.counters[to]++;
  }
}
