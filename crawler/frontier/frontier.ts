/**
 * The frontier and the URL-seen test, both in SQLite: a URL is queued once in its life (the UNIQUE
 * normalized URL is the seen-set), and each host's queue is read breadth-first (lowest depth, then
 * oldest) through a partial index; URLs that failed temporarily come back when their next attempt
 * is due. Only counters live in RAM, so memory stays flat however large the frontier grows
 * (bench/frontier-memory).
 */
import type { Db } from '../../store/sqlite/db.ts';
import { REMOVED_BY_ADMIN, URL_STATES, type FetchMeta, type FrontierCounts, type Outcome, type QueuedUrl, type Revisit, type Target, type UrlRecord, type UrlState } from '../../model/index.ts';
import type { ErrorCode } from '../../model/index.ts';
import { date } from './revisit.ts';

/** Which URLs next() may hand out. */
export type PickOptions = {
  /** New and queued URLs, and retries (false once limits.maxPages is reached). */
  readonly fresh: boolean;
  /** Pages whose revisit is due by this time (none when undefined). */
  readonly revisitsDueBy?: number | undefined;
};

export type { FrontierCounts, Outcome, QueuedUrl, Revisit, Target } from '../../model/index.ts';
export { REMOVED_BY_ADMIN } from '../../model/index.ts';

const STATES = URL_STATES;

type Row = {
  id: number;
  url: string;
  fetch_url: string | null;
  host: string;
  depth: number;
  state: UrlState;
  reason: string | null;
  error: string | null;
  http_status: number | null;
  hops: number;
  attempts: number;
  next_attempt_at: number | null;
  discovered_at: number;
  fetched_at: number | null;
  changed_at: number | null;
  content_type: string | null;
  charset: string | null;
  lang: string | null;
  size: number | null;
  hash: string | null;
  etag: string | null;
  last_modified: string | null;
  lastmod: string | null;
  revisit_at: number | null;
  revisit_ms: number | null;
  tunnel: number;
  topic_score: number | null;
  relevant: number | null;
};

/** How long a group transaction stays open at most (inGroup). */
const GROUP_COMMIT_MS = 50;

const QUEUED_COLUMNS = 'id, url, coalesce(fetch_url, url) AS fetchUrl, host, depth, hops, attempts, etag, last_modified AS lastModified, hash, links_hash AS linksHash, revisit_ms AS revisitMs, lastmod, tunnel, topic_score AS topicScore, state';

/** States a page may be revisited from (revisit_at is NULL in every other). */
const SETTLED = `state NOT IN ('queued', 'fetching', 'failed')`;

export class Frontier {
  private readonly stmts;
  private readonly counters: FrontierCounts;
  /** URLs per host (for limits.maxPagesPerHost): one number per host, not per URL. */
  private readonly perHost = new Map<string, number>();
  /** A group transaction is open (inGroup), committed by its timer or commit(). */
  private group = false;
  private groupTimer: NodeJS.Timeout | undefined;
  /** Hosts whose last URL handed out was a new one: their next may be a due revisit (interleaving). */
  private readonly revisitTurn = new Set<string>();
  /** Focused crawl: URLs whose last verdict was relevant, and not relevant. */
  private readonly topicCounts = { relevant: 0, notRelevant: 0 };

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO urls (url, fetch_url, host, depth, state, hops, discovered_at, tunnel) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?) ON CONFLICT(url) DO NOTHING`),
      nextQueued: db.prepare(`SELECT ${QUEUED_COLUMNS} FROM urls WHERE host = ? AND state = 'queued' ORDER BY depth, id LIMIT 1`),
      nextRetry: db.prepare(`SELECT ${QUEUED_COLUMNS} FROM urls WHERE host = ? AND state = 'failed' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 1`),
      nextRevisit: db.prepare(`SELECT ${QUEUED_COLUMNS} FROM urls WHERE host = ? AND revisit_at <= ? AND ${SETTLED} ORDER BY revisit_at LIMIT 1`),
      markFetching: db.prepare(`UPDATE urls SET state = 'fetching', attempts = attempts + 1, revisit_at = NULL WHERE id = ?`),
      finish: db.prepare(`UPDATE urls SET state = @state, reason = @reason, error = @error, http_status = @status, fetched_at = @now,
        next_attempt_at = @retryAt, attempts = CASE WHEN @state IN ('failed', 'dead') THEN attempts ELSE 0 END,
        revisit_at = @revisitAt, revisit_ms = coalesce(@revisitMs, revisit_ms) WHERE id = @id`),
      meta: db.prepare(`UPDATE urls SET content_type = @contentType, charset = @charset, lang = @lang, size = @size,
        changed_at = CASE WHEN @hash IS NOT NULL AND hash IS NOT @hash THEN @now ELSE changed_at END,
        hash = coalesce(@hash, hash), etag = @etag, last_modified = @lastModified, links_hash = coalesce(@linksHash, links_hash),
        topic_score = coalesce(@topicScore, topic_score), relevant = coalesce(@relevant, relevant) WHERE id = @id`),
      relevantOf: db.prepare(`SELECT relevant FROM urls WHERE id = ?`).pluck(),
      topicCounts: db.prepare(`SELECT relevant, count(*) AS n FROM urls WHERE relevant IS NOT NULL GROUP BY relevant`),
      putBack: db.prepare(`UPDATE urls SET state = 'queued', attempts = max(attempts - 1, 0) WHERE id = ? AND state = 'fetching'`),
      recover: db.prepare(`UPDATE urls SET state = 'queued', attempts = max(attempts - 1, 0) WHERE state = 'fetching'`),
      hosts: db.prepare(`SELECT DISTINCT host FROM urls WHERE state = 'queued'`),
      retryHosts: db.prepare(`SELECT DISTINCT host FROM urls WHERE state = 'failed' AND next_attempt_at <= ?`),
      nextRetryAt: db.prepare(`SELECT min(next_attempt_at) AS at FROM urls WHERE state = 'failed'`),
      counts: db.prepare(`SELECT state, count(*) AS n FROM urls GROUP BY state`),
      hostCounts: db.prepare(`SELECT host, count(*) AS n FROM urls GROUP BY host`),
      // A sitemap that dates the page after Trawl fetched it makes its revisit due: since that date.
      lastmod: db.prepare(`UPDATE urls SET lastmod = @lastmod,
        revisit_at = CASE WHEN revisit_at IS NOT NULL AND @lastmodAt IS NOT NULL AND @lastmodAt > fetched_at THEN min(revisit_at, @lastmodAt) ELSE revisit_at END WHERE url = @url`),
      sitemapsDue: db.prepare(`UPDATE urls SET revisit_at = min(revisit_at, ?) WHERE state = 'fetched' AND revisit_at IS NOT NULL`),
      revisitHosts: db.prepare(`SELECT DISTINCT host FROM urls WHERE revisit_at <= ?`),
      nextRevisitAt: db.prepare(`SELECT min(revisit_at) AS at FROM urls WHERE revisit_at IS NOT NULL`),
      dueRevisits: db.prepare(`SELECT count(*) AS n FROM urls WHERE revisit_at <= ?`),
      byUrl: db.prepare(`SELECT * FROM urls WHERE url = ?`),
      idOf: db.prepare(`SELECT id FROM urls WHERE url = ?`),
      addSeed: db.prepare(`INSERT INTO seeds (url, added_at) VALUES (?, ?) ON CONFLICT(url) DO NOTHING`),
      seeds: db.prepare(`SELECT url FROM seeds ORDER BY added_at, url`),
      reject: db.prepare(`INSERT INTO rejections (reason, count) VALUES (?, ?) ON CONFLICT(reason) DO UPDATE SET count = count + ?`),
      rejections: db.prepare(`SELECT reason, count FROM rejections ORDER BY count DESC, reason`),
      killHost: db.prepare(`UPDATE urls SET state = 'dead', error = ?, reason = ?, fetched_at = ? WHERE host = ? AND state IN ('queued', 'failed')`),
      requeueUrl: db.prepare(`UPDATE urls SET state = 'queued', attempts = 0, next_attempt_at = NULL, revisit_at = NULL WHERE url = ? AND state NOT IN ('queued', 'fetching')`),
      requeueHost: db.prepare(`UPDATE urls SET state = 'queued', attempts = 0, next_attempt_at = NULL, revisit_at = NULL WHERE host = ? AND state NOT IN ('queued', 'fetching') AND reason IS NOT '${REMOVED_BY_ADMIN}'`),
      requeueAll: db.prepare(`UPDATE urls SET state = 'queued', attempts = 0, next_attempt_at = NULL, revisit_at = NULL WHERE state NOT IN ('queued', 'fetching') AND reason IS NOT '${REMOVED_BY_ADMIN}'`),
      idsOfHost: db.prepare(`SELECT id FROM urls WHERE host = ?`),
      queuedOfHost: db.prepare(`SELECT count(*) AS n FROM urls WHERE host = ? AND state = 'queued'`),
      excludeUrl: db.prepare(`UPDATE urls SET state = 'excluded', reason = '${REMOVED_BY_ADMIN}', error = NULL, next_attempt_at = NULL, revisit_at = NULL WHERE url = ? AND state != 'fetching'`),
      excludeHost: db.prepare(`UPDATE urls SET state = 'excluded', reason = '${REMOVED_BY_ADMIN}', error = NULL, next_attempt_at = NULL, revisit_at = NULL WHERE host = ? AND state != 'fetching'`),
      pendingOfHost: db.prepare(`SELECT state, count(*) AS n FROM urls WHERE host = ? AND state IN ('queued', 'failed') GROUP BY state`),
    };
    this.counters = Object.fromEntries(STATES.map((s) => [s, 0])) as FrontierCounts;
    for (const { state, n } of this.stmts.counts.all() as { state: UrlState; n: number }[]) this.counters[state] = n;
    for (const { host, n } of this.stmts.hostCounts.all() as { host: string; n: number }[]) this.perHost.set(host, n);
    for (const { relevant, n } of this.stmts.topicCounts.all() as { relevant: number; n: number }[]) this.topicCounts[relevant ? 'relevant' : 'notRelevant'] = n;
  }

  /**
   * Queues a normalized URL unless it was ever seen. `fetchUrl` is what will be requested, when it
   * differs from the identity `url`. Returns true when the URL is new.
   */
  enqueue(url: string, depth: number, hops = 0, fetchUrl?: string, lastmod?: string, tunnel = 0): boolean {
    const host = new URL(url).host;
    const added = this.stmts.insert.run(url, fetchUrl && fetchUrl !== url ? fetchUrl : null, host, depth, hops, this.now(), tunnel).changes === 1;
    // A sitemap's <lastmod> is kept whether the URL is new or not: recrawl scheduling reads it.
    if (lastmod) this.stmts.lastmod.run({ lastmod: lastmod.slice(0, 40), lastmodAt: date(lastmod) ?? null, url });
    if (added) {
      this.counters.queued++;
      this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    }
    return added;
  }

  /**
   * Queues many URLs, and counts the rejections of those that were not admitted, in one
   * transaction. Returns the hosts that received new URLs.
   */
  enqueueMany(items: readonly { url: string; depth: number; hops?: number; fetchUrl?: string; lastmod?: string; tunnel?: number }[], rejected: ReadonlyMap<string, number> = new Map()): Set<string> {
    const hosts = new Set<string>();
    this.db.transaction(() => {
      let seen = 0;
      for (const it of items) {
        if (this.enqueue(it.url, it.depth, it.hops ?? 0, it.fetchUrl, it.lastmod, it.tunnel)) hosts.add(new URL(it.url).host);
        else seen++;
      }
      // The seen-set is the last filter: its rejections are counted like the others'.
      if (seen) this.stmts.reject.run('already-seen', seen, seen);
      for (const [reason, n] of rejected) this.stmts.reject.run(reason, n, n);
    })();
    return hosts;
  }

  /**
   * Group commit: a page's document, record and new links are written together, all or nothing
   * (a failing page rolls back its savepoint only), in a transaction shared by the pages handled
   * within GROUP_COMMIT_MS, so that many pages pay for one commit (a commit was ~0.15 ms a page, a
   * tenth of the crawl's main thread). A crash loses the pages of the open group: their URLs are
   * fetched again on resume, like those in flight. `commit()` ends the group at once.
   */
  inGroup<T>(fn: () => T): T {
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN');
      this.group = true;
      this.groupTimer = setTimeout(() => this.commit(), GROUP_COMMIT_MS);
    }
    return this.db.transaction(fn)();
  }

  /** Commits the open group, if any. */
  commit(): void {
    clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    if (!this.group) return;
    this.group = false;
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** How many URLs of `host` were ever queued. */
  urlsOfHost(host: string): number {
    return this.perHost.get(host) ?? 0;
  }

  /**
   * Takes the host's next URL and marks it in flight: breadth-first among new ones, then retries
   * that are due; due revisits take every other turn while there are new URLs (so neither starves
   * the other), and all turns when there are none.
   */
  next(host: string, pick: PickOptions = { fresh: true }): QueuedUrl | undefined {
    type Picked = QueuedUrl & { state: UrlState };
    const now = this.now();
    const by = pick.revisitsDueBy;
    const revisit = () => (by !== undefined ? (this.stmts.nextRevisit.get(host, by) as Picked | undefined) : undefined);
    let row: Picked | undefined;
    let isRevisit = false;
    if (by !== undefined && this.revisitTurn.has(host)) {
      row = revisit();
      isRevisit = row !== undefined;
    }
    if (!row && pick.fresh) {
      row = this.stmts.nextQueued.get(host) as Picked | undefined;
      if (!row && this.counters.failed > 0) row = this.stmts.nextRetry.get(host, now) as Picked | undefined;
    }
    if (!row) {
      row = revisit();
      isRevisit = row !== undefined;
    }
    if (!row) return undefined;
    if (isRevisit) this.revisitTurn.delete(host);
    else if (by !== undefined) this.revisitTurn.add(host);
    this.stmts.markFetching.run(row.id);
    this.move(row.state, 'fetching');
    const { state: _, ...q } = row;
    return { ...q, attempts: q.attempts + 1, revisit: isRevisit };
  }

  /** Records how a fetch ended, and when the page is due again (`revisit`; none: not scheduled). */
  finish(id: number, outcome: Outcome, revisit: Revisit = null): void {
    const reason = outcome.kind === 'redirected' ? outcome.to : 'reason' in outcome ? outcome.reason : 'note' in outcome ? (outcome.note ?? null) : null;
    const now = this.now();
    this.db.transaction(() => {
      this.stmts.finish.run({
        id,
        state: outcome.kind,
        reason,
        error: 'error' in outcome ? outcome.error : null,
        status: 'status' in outcome ? (outcome.status ?? null) : null,
        retryAt: outcome.kind === 'failed' ? outcome.retryAt : null,
        // A URL waiting for its retry is not also waiting for a revisit.
        revisitAt: revisit && outcome.kind !== 'failed' ? revisit.at : null,
        revisitMs: revisit?.intervalMs ?? null,
        now,
      });
      const meta = 'meta' in outcome ? outcome.meta : undefined;
      if (meta?.topic) {
        const before = this.stmts.relevantOf.get(id) as number | null;
        if (before !== null) this.topicCounts[before ? 'relevant' : 'notRelevant']--;
        this.topicCounts[meta.topic.relevant ? 'relevant' : 'notRelevant']++;
      }
      if (meta) {
        this.stmts.meta.run({
          id,
          now,
          contentType: meta.contentType ?? null,
          charset: meta.charset ?? null,
          lang: meta.lang ?? null,
          size: meta.size ?? null,
          hash: meta.hash ?? null,
          etag: meta.etag ?? null,
          lastModified: meta.lastModified ?? null,
          linksHash: meta.linksHash ?? null,
          topicScore: meta.topic?.score ?? null,
          relevant: meta.topic ? (meta.topic.relevant ? 1 : 0) : null,
        });
      }
    })();
    this.move('fetching', outcome.kind);
  }

  /** Returns an in-flight URL to the queue, not counting the attempt (a graceful stop, an unready host). */
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

  /** Hosts with a failed URL whose next attempt is due. */
  hostsWithDueRetries(): string[] {
    if (!this.counters.failed) return [];
    return (this.stmts.retryHosts.all(this.now()) as { host: string }[]).map((r) => r.host);
  }

  /** When the earliest failed URL may be tried again, or undefined when none waits. */
  nextRetryAt(): number | undefined {
    if (!this.counters.failed) return undefined;
    return (this.stmts.nextRetryAt.get() as { at: number | null }).at ?? undefined;
  }

  /** Hosts with a page whose revisit is due by `by` (default: now). */
  hostsWithDueRevisits(by = this.now()): string[] {
    return (this.stmts.revisitHosts.all(by) as { host: string }[]).map((r) => r.host);
  }

  /**
   * Makes every sitemap (a URL `fetched`, not a document) due by `by`: a pass over due pages reads
   * them first, so that their <lastmod> can make the pages that changed due in the same pass.
   */
  sitemapsDue(by: number): void {
    this.stmts.sitemapsDue.run(by);
  }

  /** When the next revisit falls due (it may be past), or undefined when none is scheduled. */
  nextRevisitAt(): number | undefined {
    return (this.stmts.nextRevisitAt.get() as { at: number | null }).at ?? undefined;
  }

  /** Pages whose revisit is due now. */
  dueRevisits(): number {
    return (this.stmts.dueRevisits.get(this.now()) as { n: number }).n;
  }

  counts(): Readonly<FrontierCounts> {
    return { ...this.counters };
  }

  /** Pages fetched with success (documents, sitemaps, not-modified): what limits.maxPages counts. */
  pagesFetched(): number {
    return this.counters.indexed + this.counters.fetched + this.counters['not-modified'];
  }

  /** The id of a URL's record (its identity), if Trawl has seen it. */
  idOf(url: string): number | undefined {
    return (this.stmts.idOf.get(url) as { id: number } | undefined)?.id;
  }

  record(url: string): UrlRecord | undefined {
    const r = this.stmts.byUrl.get(url) as Row | undefined;
    if (!r) return undefined;
    return {
      id: r.id,
      url: r.url,
      fetchUrl: r.fetch_url ?? r.url,
      host: r.host,
      depth: r.depth,
      state: r.state,
      reason: r.reason,
      error: r.error,
      httpStatus: r.http_status,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at,
      discoveredAt: r.discovered_at,
      fetchedAt: r.fetched_at,
      changedAt: r.changed_at,
      contentType: r.content_type,
      charset: r.charset,
      lang: r.lang,
      size: r.size,
      hash: r.hash,
      etag: r.etag,
      lastModified: r.last_modified,
      lastmod: r.lastmod,
      revisitAt: r.revisit_at,
      revisitMs: r.revisit_ms,
      tunnel: r.tunnel,
      topicScore: r.topic_score,
      relevant: r.relevant === null ? null : r.relevant === 1,
    };
  }

  /** Focused crawl: URLs whose last verdict was relevant, and not relevant. */
  topicVerdicts(): { relevant: number; notRelevant: number } {
    return { ...this.topicCounts };
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

  rejections(): { reason: string; count: number }[] {
    return this.stmts.rejections.all() as { reason: string; count: number }[];
  }

  /** Marks every queued or failed URL of a host dead (a host given up on). Returns how many. */
  killHost(host: string, error: ErrorCode, reason: string): number {
    return this.db.transaction(() => {
      const before = this.stmts.pendingOfHost.all(host) as { state: UrlState; n: number }[];
      const n = this.stmts.killHost.run(error, reason, this.now(), host).changes;
      for (const { state, n: k } of before) {
        this.counters[state] -= k;
        this.counters.dead += k;
      }
      return n;
    })();
  }

  /**
   * Queues again the URLs of `target` that are not queued or in flight (a recrawl); a URL or host
   * removed by an admin is queued again only when named by its URL. Returns how many, and the hosts
   * that now have queued URLs (for the scheduler).
   */
  requeue(target: Target): { count: number; hosts: string[] } {
    return this.db.transaction(() => {
      const run = 'url' in target ? this.stmts.requeueUrl.run(target.url) : 'host' in target ? this.stmts.requeueHost.run(target.host) : this.stmts.requeueAll.run();
      this.recount();
      return { count: run.changes, hosts: run.changes ? (this.stmts.hosts.all() as { host: string }[]).map((r) => r.host) : [] };
    })();
  }

  /**
   * Marks the URLs of `target` excluded, "removed by an admin", so that the crawl does not bring
   * them back (a URL in flight is left alone). Returns the ids of the URLs that were known.
   */
  exclude(target: { url: string } | { host: string }): number[] {
    return this.db.transaction(() => {
      const ids = 'url' in target ? [this.idOf(target.url)].filter((x): x is number => x !== undefined) : (this.stmts.idsOfHost.all(target.host) as { id: number }[]).map((r) => r.id);
      if ('url' in target) this.stmts.excludeUrl.run(target.url);
      else this.stmts.excludeHost.run(target.host);
      this.recount();
      return ids;
    })();
  }

  /** URLs of a host waiting to be fetched (read from the queue's index). */
  queuedOf(host: string): number {
    return (this.stmts.queuedOfHost.get(host) as { n: number }).n;
  }

  /** The counters again from the table, after a change to many rows. */
  private recount(): void {
    for (const state of STATES) this.counters[state] = 0;
    for (const { state, n } of this.stmts.counts.all() as { state: UrlState; n: number }[]) this.counters[state] = n;
  }

  private move(from: UrlState, to: UrlState): void {
    this.counters[from]--;
    this.counters[to]++;
  }
}
