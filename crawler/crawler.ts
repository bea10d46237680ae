/**
 * The crawl loop. It pulls ready hosts from the scheduler (round-robin, polite), takes each host's
 * next URL from the SQLite frontier, checks robots.txt, fetches, parses (in a worker when there is
 * a spare core), stores the document and queues the page's links. It knows nothing of the index or
 * the server: it emits events (`document`, `removed`, `fetch`, `stats`, `done`) and the
 * orchestrator routes them.
 */
import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import type { DocumentStore } from '../store/sqlite/documents.ts';
import type { FetchEvent, FetchMeta, StoredDocument } from '../model/index.ts';
import { decide, ERRORS, fromFetchCode, fromHttpStatus, type ErrorCode, type RetryPolicy } from './errors.ts';
import type { Fetcher, FetchResponse, FetchResult } from './fetch/fetcher.ts';
import type { Frontier, Outcome, QueuedUrl, Revisit } from './frontier/frontier.ts';
import { nextInterval, type RevisitChange, type RevisitPolicy } from './frontier/revisit.ts';
import type { HostScheduler } from './frontier/hosts.ts';
import { SeenCache } from './frontier/seen-cache.ts';
import { follows, judge, SEED_TUNNEL, type Focus, type Verdict } from './focus/focus.ts';
import { ParseFailure, type Extracted, type PageParser } from './parse/index.ts';
import { productToken, type RobotsCache, type RobotsRules } from './robots/robots.ts';
import { StatsRecorder, type CrawlStats } from './stats.ts';
import { admit, type UrlPolicy } from './urls/filters.ts';

export type CrawlerLimits = {
  readonly concurrency: number;
  readonly maxPages: number;
  readonly maxRedirects: number;
  /** Follow rel="nofollow" links too. */
  readonly followNofollow?: boolean;
  /** Attempts per URL and the back-off between them. */
  readonly retry?: RetryPolicy;
  /** Suspensions after which a host is given up. */
  readonly maxSuspensions?: number;
  /** Bounds of a page's revisit interval (crawler/frontier/revisit.ts). */
  readonly revisit?: RevisitPolicy;
  /** What the crawl does with pages whose revisit is due (RevisitMode); default `off`. */
  readonly revisits?: RevisitMode;
};

/**
 * How a crawl treats pages whose revisit is due, interleaved with new URLs: `off` takes none (a
 * pass over named pages); `due` takes those due when it runs (or is woken), so a pass ends;
 * `continuous` takes each as it falls due while it runs. Both end when nothing is left now: the
 * owner of a continuous crawl wakes it when the next page is due.
 */
export type RevisitMode = 'off' | 'due' | 'continuous';

export type { FetchEvent } from '../model/index.ts';

export type CrawlerEvents = {
  /** A page was stored: index it. `analysis` is what the extractor added for the index, if anything. */
  document: [StoredDocument, unknown];
  /** A stored page must leave the index (noindex, duplicate, canonical elsewhere). */
  removed: [number];
  /** Links with anchor text to these URLs (identities) were recorded: their pages' anchor field is stale. */
  anchors: [string[]];
  /** A request ended, whatever its outcome. */
  fetch: [FetchEvent];
  /** Per-stage figures, every second while the crawl runs. */
  stats: [CrawlStats];
  /** Nothing in scope is left, or a limit was hit, or stop() finished. */
  done: [{ reason: 'exhausted' | 'limit' | 'stopped' }];
};

export type CrawlerDeps = {
  readonly frontier: Frontier;
  readonly scheduler: HostScheduler;
  readonly robots: RobotsCache;
  readonly fetcher: Fetcher;
  readonly documents: DocumentStore;
  /** Decodes and parses bodies (inline, or in worker threads). */
  readonly parser: PageParser;
  /** Where the anchor text of links is recorded (for the index's anchor field); none: not recorded. */
  readonly anchors?: { add(source: string, links: readonly { target: string; text: string }[]): void };
  /** Normalizer and filters: how raw links become queued URLs. */
  readonly policy: UrlPolicy;
  readonly limits: CrawlerLimits;
  /** A focused crawl: pages are judged against a topic; only relevant ones are stored (crawler/focus). */
  readonly focus?: Focus | undefined;
  readonly userAgent: string;
  readonly now?: () => number;
  /** Where a bounded failure is reported (never thrown). */
  readonly log?: (message: string) => void;
};

const ABSOLUTE = /^https?:\/\//i;
const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 10_000 };
const DEFAULT_REVISIT: RevisitPolicy = { minMs: 3_600_000, maxMs: 7 * 86_400_000 };
/** How often the loop looks for hosts with revisits that fell due (a query over an index). */
const REVISIT_CHECK_MS = 1000;
const ROBOTS_GIVE_UP_AFTER = 3;
/** How long stop() lets in-flight requests finish before it aborts them and puts them back. */
const STOP_GRACE_MS = 5000;

/** Answers of 404/410 in a row after which a page Trawl holds leaves the index. */
const GONE_CONFIRMATIONS = 2;

export class Crawler extends EventEmitter<CrawlerEvents> {
  /** URLs being handled: fetched, parsed or stored. */
  private active = 0;
  /** Of those, requests in flight: `limits.concurrency` caps these, not parsing. */
  private fetching = 0;
  private stopping = false;
  private finished = false;
  /** Paused by an admin: no new requests; those in flight finish. */
  private pausedFlag = false;
  private timer: NodeJS.Timeout | undefined;
  private statsTimer: NodeJS.Timeout | undefined;
  private readonly robotsLoading = new Set<string>();
  private readonly robotsFailures = new Map<string, number>();
  /** Hosts given up on in this run: URLs found for them later die at once instead of waking them. */
  private readonly deadHosts = new Map<string, { error: ErrorCode; reason: string }>();
  private readonly abort = new AbortController();
  private donePromise: Promise<CrawlerEvents['done'][0]> | undefined;
  private readonly now: () => number;
  /** The user agent's product token, lowercased: `<meta name="TOKEN">` counts like robots. */
  private readonly token: string;
  private readonly retry: RetryPolicy;
  private readonly revisit: RevisitPolicy;
  private revisitCheckAt = 0;
  /** Hosts with no due revisit, taken out of turn while limits.maxPages was (or might be) reached. */
  private readonly heldByLimit = new Set<string>();
  /** For `due`: revisits due by this time are taken (set when the crawl runs or wakes). */
  private revisitCutoff = 0;
  private readonly seen = new SeenCache();
  readonly stats: StatsRecorder;

  constructor(private readonly d: CrawlerDeps) {
    super();
    this.now = d.now ?? Date.now;
    this.token = productToken(d.userAgent).toLowerCase();
    this.retry = d.limits.retry ?? DEFAULT_RETRY;
    this.revisit = d.limits.revisit ?? DEFAULT_REVISIT;
    this.stats = new StatsRecorder(this.now);
  }

  /** Queues seeds (normalized and filtered; rejections are returned with their reasons). */
  addSeeds(urls: readonly string[]): { queued: string[]; rejected: { url: string; reason: string }[] } {
    const queued: string[] = [];
    const rejected: { url: string; reason: string }[] = [];
    for (const raw of urls) {
      const a = admit(this.d.policy, raw, 0);
      if (!a.ok) {
        rejected.push({ url: raw, reason: a.detail ? `${a.reason} (${a.detail})` : a.reason });
        continue;
      }
      this.d.frontier.addSeeds([a.fetchUrl]);
      // (A seed's links are followed in a focused crawl even when it is not relevant: SEED_TUNNEL.)
      this.d.frontier.enqueue(a.url, 0, 0, a.fetchUrl, undefined, SEED_TUNNEL);
      queued.push(a.url);
      this.d.scheduler.addWork(new URL(a.url).host);
    }
    if (queued.length) this.wake();
    return { queued, rejected };
  }

  /**
   * New work arrived (seeds, pages to recrawl): if the crawl had run out of work, it runs again
   * (and emits 'done' again when it runs out); if it is running, it looks for the work now.
   * A crawl stopped by stop() or never run stays as it is.
   */
  wake(): void {
    if (!this.donePromise || this.stopping) return;
    if (this.finished) {
      this.finished = false;
      this.startRevisits();
      this.statsTimer = setInterval(() => this.emit('stats', this.stats.snapshot()), 1000);
      this.statsTimer.unref();
    }
    queueMicrotask(() => this.pump());
  }

  /** No new requests until resume(); requests in flight finish. The crawl does not end while paused. */
  pause(): void {
    this.pausedFlag = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  resume(): void {
    if (!this.pausedFlag) return;
    this.pausedFlag = false;
    this.wake();
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /** Runs until nothing in scope is left, a limit is hit, or stop() is called. */
  run(): Promise<CrawlerEvents['done'][0]> {
    this.donePromise ??= new Promise((resolve) => {
      this.once('done', resolve);
      this.startRevisits();
      const recovered = this.d.frontier.recoverInFlight();
      if (recovered) this.d.log?.(`resumed: ${recovered} URLs that were in flight when the last run stopped are queued again`);
      for (const host of this.d.frontier.hostsWithWork()) this.d.scheduler.addWork(host);
      this.statsTimer = setInterval(() => this.emit('stats', this.stats.snapshot()), 1000);
      this.statsTimer.unref();
      queueMicrotask(() => this.pump());
    });
    return this.donePromise;
  }

  /**
   * A run (or a wake) takes the revisits due from now. A `due` pass reads the sitemaps first: a
   * newer <lastmod> there makes a page due in the same pass.
   */
  private startRevisits(): void {
    this.revisitCutoff = this.now();
    this.revisitCheckAt = 0;
    if (this.d.limits.revisits === 'due') this.d.frontier.sitemapsDue(this.revisitCutoff);
  }

  /** Graceful stop: no new requests; in-flight ones finish (or are put back after a grace period). */
  async stop(): Promise<void> {
    if (this.finished) return;
    this.stopping = true;
    clearTimeout(this.timer);
    const grace = setTimeout(() => this.abort.abort(), STOP_GRACE_MS);
    await new Promise<void>((resolve) => {
      const check = () => (this.active === 0 && this.robotsLoading.size === 0 ? resolve() : setTimeout(check, 20));
      check();
    });
    clearTimeout(grace);
    this.finish('stopped');
  }

  get running(): boolean {
    return !this.finished && this.donePromise !== undefined;
  }

  /** Requests in flight now. */
  inFlight(): number {
    return this.fetching;
  }

  /** Requests completed per second over the last 10 seconds. */
  pagesPerSecond(): number {
    return this.stats.pagesPerSecond();
  }

  /** True when the pages fetched, plus those in flight that may still be, reach limits.maxPages. */
  private limitReached(counting = this.active): boolean {
    return this.d.limits.maxPages > 0 && this.d.frontier.pagesFetched() + counting >= this.d.limits.maxPages;
  }

  private pump(): void {
    if (this.stopping || this.finished || this.pausedFlag) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.now();
    for (const host of this.d.frontier.hostsWithDueRetries()) this.d.scheduler.addWork(host);
    const mode = this.d.limits.revisits ?? 'off';
    const revisitsDueBy = mode === 'off' ? undefined : mode === 'due' ? this.revisitCutoff : now;
    if (revisitsDueBy !== undefined && now >= this.revisitCheckAt) {
      this.revisitCheckAt = now + REVISIT_CHECK_MS;
      for (const host of this.d.frontier.hostsWithDueRevisits(revisitsDueBy)) this.d.scheduler.addWork(host);
    }
    const revisits = revisitsDueBy !== undefined;
    // Hosts set aside while pages in flight might reach limits.maxPages: back, if they did not.
    if (this.heldByLimit.size && !this.limitReached()) {
      for (const host of this.heldByLimit) this.d.scheduler.addWork(host);
      this.heldByLimit.clear();
    }
    // Pages waiting to be parsed and stored do not hold a connection; the bound on them (as many
    // again as requests) keeps bodies in memory bounded when parsing is the slower stage.
    const { concurrency } = this.d.limits;
    while (this.fetching < concurrency && this.active < concurrency * 2) {
      // limits.maxPages counts pages, not fetches: once it is reached, revisits go on.
      const fresh = !this.limitReached();
      if (!fresh && !revisits) break;
      const host = this.d.scheduler.pick(now);
      if (!host) break;
      const dead = this.deadHosts.get(host);
      if (dead) {
        this.d.frontier.killHost(host, dead.error, dead.reason);
        this.d.scheduler.noWork(host);
        continue;
      }
      const q = this.d.frontier.next(host, { fresh, revisitsDueBy });
      if (!q) {
        this.d.scheduler.noWork(host);
        if (!fresh) this.heldByLimit.add(host);
        continue;
      }
      const origin = new URL(q.fetchUrl).origin;
      const rules = this.d.robots.cached(origin);
      if (!rules || rules.state === 'unavailable') {
        this.d.frontier.putBack(q.id);
        this.loadRobots(host, origin);
        continue;
      }
      if (!rules.isAllowed(q.fetchUrl)) {
        // (A page Trawl held that robots.txt now disallows leaves the index.)
        this.unindex(q.id);
        this.d.frontier.finish(q.id, { kind: 'excluded', reason: 'robots.txt disallows it' });
        this.d.frontier.countRejection('robots');
        continue;
      }
      this.active++;
      this.fetching++;
      this.d.scheduler.begin(host);
      void this.process(q).finally(() => {
        this.active--;
        this.pump();
      });
    }
    this.checkDone();
    this.armTimer();
  }

  /** Wakes the loop when the next host's delay is over, or the next failed URL is due. */
  private armTimer(): void {
    if (this.finished || this.stopping || this.timer) return;
    const candidates = [this.d.scheduler.nextReadyAt(), this.d.frontier.nextRetryAt()].filter((x): x is number => x !== undefined);
    if (!candidates.length || this.fetching >= this.d.limits.concurrency || this.active >= this.d.limits.concurrency * 2) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(5, Math.min(...candidates) - this.now()));
  }

  private checkDone(): void {
    if (this.active > 0 || this.robotsLoading.size > 0) return;
    // (Past the limit, a crawl that takes due revisits ends once none is left.)
    if (this.limitReached(0) && !(this.d.limits.revisits !== undefined && this.d.limits.revisits !== 'off' && this.d.scheduler.hasWork())) this.finish('limit');
    else if (!this.d.scheduler.hasWork() && this.d.frontier.nextRetryAt() === undefined) this.finish('exhausted');
  }

  private finish(reason: 'exhausted' | 'limit' | 'stopped'): void {
    if (this.finished) return;
    this.finished = true;
    this.d.frontier.commit();
    clearTimeout(this.timer);
    clearInterval(this.statsTimer);
    this.emit('stats', this.stats.snapshot());
    this.emit('done', { reason });
  }

  /** Loads a host's robots.txt while its URLs wait; other hosts go on. */
  private loadRobots(host: string, origin: string): void {
    if (this.robotsLoading.has(host)) return;
    this.robotsLoading.add(host);
    this.d.scheduler.setWaitingForRobots(host, true);
    this.d.scheduler.begin(host);
    void this.d.robots
      .load(origin, this.abort.signal)
      .then((rules) => this.robotsLoaded(host, origin, rules))
      .catch((e: unknown) => this.d.log?.(`robots.txt of ${host}: ${(e as Error).message}`))
      .finally(() => {
        this.robotsLoading.delete(host);
        this.d.scheduler.setWaitingForRobots(host, false);
        this.pump();
      });
  }

  private robotsLoaded(host: string, origin: string, rules: RobotsRules): void {
    const ok = rules.state !== 'unavailable';
    this.d.scheduler.end(host, this.now(), { ok, ...(ok ? {} : { error: 'robots-unavailable' }) });
    if (!ok) {
      const failures = (this.robotsFailures.get(host) ?? 0) + 1;
      this.robotsFailures.set(host, failures);
      if (failures >= ROBOTS_GIVE_UP_AFTER) this.giveUpHost(host, 'robots-unavailable', `robots.txt unavailable ${failures} times (${rules.detail})`);
      return;
    }
    this.robotsFailures.delete(host);
    this.d.scheduler.setCrawlDelay(host, rules.crawlDelaySeconds);
    // Sitemaps named by robots.txt, else the conventional /sitemap.xml.
    const sitemaps = rules.sitemaps.length ? rules.sitemaps : [new URL('/sitemap.xml', origin).href];
    this.queueLinks(sitemaps.map((url) => ({ url })), 0, undefined);
  }

  private giveUpHost(host: string, error: ErrorCode, reason: string): void {
    this.deadHosts.set(host, { error, reason });
    this.d.scheduler.noWork(host);
    const n = this.d.frontier.killHost(host, error, reason);
    this.d.log?.(`giving up on ${host}: ${reason}; ${n} URLs marked dead`);
  }

  private async process(q: QueuedUrl): Promise<void> {
    const started = this.now();
    const t0 = performance.now();
    const host = q.host;
    let res: Awaited<ReturnType<Fetcher['fetch']>>;
    // A page Trawl holds is asked for conditionally: unchanged, it costs no download, no parse
    // and no reindexing.
    const held = this.d.documents.has(q.id);
    const stored = held && (q.etag || q.lastModified || q.hash) ? q : undefined;
    try {
      res = await this.d.fetcher.fetch(q.fetchUrl, this.abort.signal, stored && { etag: stored.etag ?? undefined, lastModified: stored.lastModified ?? undefined });
    } finally {
      this.fetching--;
    }
    const ended = this.now();
    if (res.kind === 'error' && res.code === 'aborted') {
      this.d.frontier.putBack(q.id);
      this.d.scheduler.end(host, ended, { ok: true });
      return;
    }
    this.stats.time('fetch', performance.now() - t0);
    this.stats.request(res.kind === 'response' ? res.wireBytes : 0);
    // The request is over: the host's politeness clock starts now, not after parsing.
    const error = res.kind === 'error' ? fromFetchCode(res.code) : res.status === 429 || res.status >= 500 ? fromHttpStatus(res.status) : undefined;
    this.d.scheduler.end(host, ended, {
      ok: !error || !ERRORS[error].hostFault,
      retryAfterMs: res.kind === 'response' ? res.retryAfterMs : undefined,
      ...(error ? { error } : {}),
    });
    if (!this.deadHosts.has(host) && this.d.scheduler.suspensions(host) >= (this.d.limits.maxSuspensions ?? 3)) {
      this.giveUpHost(host, 'host-suspended', `suspended ${this.d.scheduler.suspensions(host)} times; last error: ${error ?? 'unknown'}`);
    }
    // The connection is free: the next request starts while this page is parsed.
    this.pump();
    let outcome: Outcome;
    try {
      let extracted: Extracted | undefined;
      if (res.kind === 'response' && res.status >= 200 && res.status < 300) {
        const p0 = performance.now();
        extracted = await this.d.parser.parse({ body: res.body, contentType: res.contentType, url: q.fetchUrl, robotsToken: this.token });
        this.stats.time('parse', performance.now() - p0);
      }
      let verdict: Verdict | undefined;
      if (this.d.focus && extracted?.kind === 'page') {
        const c0 = performance.now();
        verdict = await judge(this.d.focus, { ...extracted.page, url: q.fetchUrl });
        this.stats.time('classify', performance.now() - c0);
      }
      outcome = this.d.frontier.inGroup(() => {
        let o: Outcome;
        if (res.kind === 'error') o = this.failure(q, fromFetchCode(res.code), `${res.code}: ${res.message}`.slice(0, 500));
        else if (res.status === 304 && stored) {
          this.d.documents.touch(q.id, this.now());
          o = { kind: 'not-modified', status: 304 };
        } else if (extracted) o = this.onContent(q, res, extracted, stored?.hash ?? undefined, verdict);
        else o = this.onStatus(q, res, held);
        // A URL that would be retried on a host given up on dies with the host.
        const deadHost = this.deadHosts.get(host);
        if (o.kind === 'failed' && deadHost) o = { kind: 'dead', ...(o.status !== undefined ? { status: o.status } : {}), error: deadHost.error, reason: deadHost.reason };
        this.d.frontier.finish(q.id, o, this.schedule(q, o, res, held));
        return o;
      });
    } catch (e) {
      // A bug or a page that breaks the parser must cost one URL, never the crawl.
      if (e instanceof ParseFailure) outcome = { kind: 'dead', error: 'unparsable', reason: e.message };
      else {
        this.d.log?.(`${q.fetchUrl}: ${(e as Error).stack ?? String(e)}`);
        outcome = { kind: 'dead', error: 'internal', reason: `internal error: ${(e as Error).message}` };
      }
      this.d.frontier.finish(q.id, outcome);
    }
    if (outcome.kind === 'failed') this.d.scheduler.addWork(host);
    // Alone in the pipeline: nothing to share a commit with, so commit now (a slow, polite crawl
    // then loses nothing but what is in flight); otherwise the group's timer commits.
    if (this.active <= 1) this.d.frontier.commit();
    this.stats.outcome(outcome.kind);
    const change = pageChange(outcome, held) ?? (held && !this.d.documents.has(q.id) ? 'gone' : undefined);
    this.emit('fetch', {
      url: q.url,
      status: res.kind === 'response' ? res.status : res.code,
      ms: ended - started,
      bytes: res.kind === 'response' ? res.wireBytes : 0,
      outcome: outcome.kind,
      ...(held ? { held } : {}),
      ...(change ? { change } : {}),
    });
  }

  /**
   * When the page is due again: its interval adapts to what this fetch found (changed: sooner;
   * the same: later). Pages and sitemaps are revisited; a held page that failed for now keeps its
   * interval (a temporary failure never drops it). Others are not scheduled.
   */
  private schedule(q: QueuedUrl, o: Outcome, res: FetchResult, held: boolean): Revisit {
    const now = this.now();
    let change: RevisitChange | undefined = pageChange(o, held);
    if (o.kind === 'fetched') change = !q.hash || !o.meta?.hash ? 'new' : q.hash === o.meta.hash ? 'unchanged' : 'changed';
    else if (o.kind === 'dead' && held && this.d.documents.has(q.id)) {
      const intervalMs = q.revisitMs ?? nextInterval(this.revisit, 'new', null, {}, now);
      return { at: now + intervalMs, intervalMs };
    }
    if (!change) return null;
    const h = res.kind === 'response' ? res.headers : {};
    const intervalMs = nextInterval(this.revisit, change, q.revisitMs, { cacheControl: h['cache-control'], expires: h['expires'], date: h['date'], lastModified: h['last-modified'], lastmod: q.lastmod }, now);
    return { at: now + intervalMs, intervalMs };
  }

  /** A failure: retried later if its code allows and attempts are left, else dead. */
  private failure(q: QueuedUrl, error: ErrorCode, reason: string, status?: number, retryAfterMs?: number): Outcome {
    const d = decide(error, q.attempts, this.retry, this.now(), retryAfterMs);
    const base = status !== undefined ? { status } : {};
    if (d.state === 'failed') return { kind: 'failed', ...base, error, reason, retryAt: d.retryAt };
    return { kind: 'dead', ...base, error, reason: ERRORS[error].retry ? `${reason} (gave up after ${q.attempts} attempts)` : reason };
  }

  /**
   * A response that is not 2xx: a redirect, a retry, or a failure. A page Trawl holds that now
   * redirects leaves the index (its content lives at the target, which is queued); one that now
   * answers 404 or 410 is asked once more, and leaves the index if the answer is the same. Other
   * failures (5xx, timeouts) never remove a page. `held`: Trawl holds the page.
   */
  private onStatus(q: QueuedUrl, res: FetchResponse, held: boolean): Outcome {
    const { status } = res;
    if (status >= 300 && status < 400 && res.location !== undefined) {
      const o = this.onRedirect(q, res.location, status);
      this.unindex(q.id);
      return o;
    }
    if ((status === 404 || status === 410) && held) {
      if (q.attempts < GONE_CONFIRMATIONS) return { kind: 'failed', status, error: 'http-4xx', reason: `HTTP ${status}: to be confirmed before the page leaves the index`, retryAt: this.now() + this.retry.baseDelayMs };
      this.unindex(q.id);
      return { kind: 'dead', status, error: 'http-4xx', reason: `HTTP ${status} ${q.attempts} times: gone from the site, removed from the index` };
    }
    return this.failure(q, fromHttpStatus(status), `HTTP ${status}`, status, res.retryAfterMs);
  }

  /**
   * A 2xx response, parsed: store and index the page, queue its links. `storedHash`: the hash
   * of the copy Trawl holds; the same text again is not stored or indexed again.
   */
  private onContent(q: QueuedUrl, res: FetchResponse, extracted: Extracted, storedHash?: string, verdict?: Verdict): Outcome {
    const { status } = res;
    const type = res.contentType.split(';')[0]!.trim();
    const meta: FetchMeta = {
      contentType: type || '(none)',
      size: res.body.length,
      ...(res.headers['etag'] ? { etag: res.headers['etag'] } : {}),
      ...(res.headers['last-modified'] ? { lastModified: res.headers['last-modified'] } : {}),
    };
    if (extracted.kind === 'unsupported') return { kind: 'excluded', status, reason: `unsupported content type ${extracted.type}`, meta };
    if (extracted.kind === 'sitemap') {
      this.stats.measure('links', () => this.queueLinks([...extracted.pages, ...extracted.sitemaps.map((url) => ({ url }))], q.depth, q.fetchUrl, undefined, q.tunnel));
      // Its hash tells a revisit whether the sitemap changed.
      const hash = createHash('sha256').update(res.body).digest('hex');
      // Its <lastmod>s may have made pages due: look for them at once.
      this.revisitCheckAt = 0;
      return { kind: 'fetched', status, note: `sitemap with ${extracted.pages.length} pages and ${extracted.sitemaps.length} sitemaps`, meta: { ...meta, hash } };
    }
    const { page } = extracted;
    const hash = createHash('sha256').update(page.title).update('\0').update(page.text).digest('hex');
    // The page's language: <html lang>, else the first of the Content-Language header's.
    const lang = (page.lang ?? res.headers['content-language']?.split(',')[0]?.trim())?.slice(0, 35) || undefined;
    let pageMeta: FetchMeta = { ...meta, charset: extracted.encoding, hash, ...(lang ? { lang } : {}), ...(verdict ? { topic: { score: verdict.score, relevant: verdict.relevant } } : {}) };
    const xRobots = (res.headers['x-robots-tag'] ?? '').toLowerCase();
    const noindex = page.noindex || /\b(noindex|none)\b/.test(xRobots);
    const nofollow = page.nofollow || /\b(nofollow|none)\b/.test(xRobots);
    // A meta refresh forwards like an HTTP redirect: the target is queued as the next hop, and
    // this page (a "Redirecting to …" stub, typically) is not indexed.
    if (page.refresh && !nofollow) {
      this.unindex(q.id);
      return this.onRedirect(q, page.refresh, status);
    }
    let linksHash: string | undefined;
    // A focused crawl follows a relevant page's links, and tunnels a little way through others.
    const focus = verdict && this.d.focus ? follows(this.d.focus, verdict.relevant, q.tunnel ?? 0) : { follow: true, tunnel: 0 };
    if (!nofollow && focus.follow) {
      const links = this.d.limits.followNofollow ? page.links : page.links.filter((l) => !l.nofollow);
      linksHash = hashLinks(links);
      // A page fetched again with the same links: they were all queued (or turned away) and their
      // anchor text counted when it was last fetched. Counting it again would inflate the link prior.
      if (!(storedHash !== undefined && q.linksHash === linksHash)) this.stats.measure('links', () => this.queueLinks(links, q.depth + 1, q.fetchUrl, q.url, focus.tunnel));
    }
    if (linksHash) pageMeta = { ...pageMeta, linksHash };
    const exclude = (reason: string): Outcome => {
      this.unindex(q.id);
      return { kind: 'excluded', status, reason, meta: pageMeta };
    };
    if (noindex) return exclude(page.noindex ? 'noindex' : 'noindex (X-Robots-Tag)');
    if (verdict && !verdict.relevant) {
      const { cutoff, classifier } = this.d.focus!;
      // (A classifier module may decide by itself, whatever the cutoff.)
      return exclude(verdict.score < cutoff ? `off topic: score ${verdict.score} below the cutoff ${cutoff}` : `off topic: judged not relevant by ${classifier.name} (score ${verdict.score})`);
    }
    // <link rel="canonical"> to another page in scope: that page is indexed instead of this one.
    const canonical = page.canonical ? admit(this.d.policy, page.canonical, q.depth) : undefined;
    if (canonical?.ok && canonical.url !== q.url) {
      this.queueLinks([{ url: page.canonical! }], q.depth, q.fetchUrl, undefined, q.tunnel);
      return exclude(`canonical is ${canonical.url}`);
    }
    // The content-seen test (Mercator): the same content under another URL is stored once.
    const seen = page.text ? this.d.documents.findByHash(hash) : undefined;
    if (seen && seen.id !== q.id) {
      this.d.documents.addDuplicate(q.id, seen.id);
      return exclude(`duplicate of ${seen.url}`);
    }
    // (The same text judged differently — the topic changed — is stored again with its new classes.)
    if (storedHash === hash && (!verdict || verdict.score === q.topicScore)) {
      this.d.documents.touch(q.id, this.now());
      return { kind: 'indexed', status, meta: pageMeta, note: 'unchanged' };
    }
    const doc: StoredDocument = {
      id: q.id,
      // The address that answered: it works in a browser even when the identity is an alias.
      url: q.fetchUrl,
      title: page.title,
      description: page.description,
      headings: page.headings,
      text: page.text,
      contentType: type || 'text/html',
      ...(lang ? { lang } : {}),
      bytes: res.body.length,
      truncated: res.truncated,
      httpStatus: status,
      fetchedAt: this.now(),
      hash,
      ...(verdict ? { topic: { score: verdict.score, classes: verdict.classes } } : {}),
    };
    this.stats.measure('store', () => this.d.documents.put(doc));
    this.stats.measure('index', () => this.emit('document', doc, extracted.analysis));
    return { kind: 'indexed', status, meta: pageMeta };
  }

  /** Removes a stored page (if it is one) from the store, and so from the index. */
  private unindex(id: number): void {
    if (this.d.documents.remove(id) !== undefined) this.emit('removed', id);
  }

  private onRedirect(q: QueuedUrl, location: string, status: number): Outcome {
    if (q.hops >= this.d.limits.maxRedirects) return { kind: 'dead', status, error: 'too-many-redirects', reason: `more than ${this.d.limits.maxRedirects} redirects` };
    const a = admit(this.d.policy, location, q.depth, q.fetchUrl);
    if (!a.ok) {
      this.d.frontier.countRejection(a.reason);
      return { kind: 'redirected', status, to: `${a.url} (not followed: ${a.reason})` };
    }
    if (this.d.frontier.enqueue(a.url, q.depth, q.hops + 1, a.fetchUrl, undefined, q.tunnel)) this.d.scheduler.addWork(new URL(a.url).host);
    return { kind: 'redirected', status, to: a.url };
  }

  /**
   * Normalizes, filters and queues links found on a page (or in a sitemap). With `source` (the
   * page's identity URL), the links' anchor text is recorded for the index.
   */
  private queueLinks(links: readonly { url: string; lastmod?: string; text?: string }[], depth: number, base: string | undefined, source?: string, tunnel = 0): void {
    const admitted: { url: string; fetchUrl: string; depth: number; lastmod?: string; tunnel: number }[] = [];
    const rejected = new Map<string, number>();
    const anchors: { target: string; text: string }[] = [];
    // Links known to be in the frontier skip normalization and SQLite (counted as already seen).
    // Only absolute links without a sitemap lastmod (which must be recorded) are cached.
    const remember = new Map<string, string>();
    let cached = 0;
    for (const link of links) {
      const cacheable = link.lastmod === undefined && ABSOLUTE.test(link.url);
      const known = cacheable ? (this.seen.get(link.url) ?? remember.get(link.url)) : undefined;
      let identity: string;
      if (known !== undefined) {
        cached++;
        identity = known;
      } else {
        const a = admit(this.d.policy, link.url, depth, base);
        if (!a.ok) {
          rejected.set(a.reason, (rejected.get(a.reason) ?? 0) + 1);
          continue;
        }
        admitted.push({ url: a.url, fetchUrl: a.fetchUrl, depth, tunnel, ...(link.lastmod ? { lastmod: link.lastmod } : {}) });
        if (cacheable) remember.set(link.url, a.url);
        identity = a.url;
      }
      if (source !== undefined && link.text) anchors.push({ target: identity, text: link.text });
    }
    if (cached) rejected.set('already-seen', (rejected.get('already-seen') ?? 0) + cached);
    for (const host of this.d.frontier.enqueueMany(admitted, rejected)) this.d.scheduler.addWork(host);
    if (anchors.length && this.d.anchors) {
      this.d.anchors.add(source!, anchors);
      this.emit('anchors', [...new Set(anchors.map((a) => a.target))]);
    }
    // In the frontier now (new or not): remembered only once the transaction went through.
    for (const [link, identity] of remember) this.seen.add(link, identity);
  }


}

/** A page's outgoing links and their anchor text, as one hash. */
function hashLinks(links: readonly { url: string; text?: string }[]): string {
  const h = createHash('sha1');
  for (const l of links) h.update(l.url).update('\0').update(l.text ?? '').update('\n');
  return h.digest('base64');
}

/** What a fetch that ended with `o` found of a page (not a sitemap): undefined when it stored nothing. */
function pageChange(o: Outcome, held: boolean): RevisitChange | undefined {
  if (o.kind === 'not-modified' || (o.kind === 'indexed' && o.note === 'unchanged')) return 'unchanged';
  if (o.kind === 'indexed') return held ? 'changed' : 'new';
  return undefined;
}
