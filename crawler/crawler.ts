/**
 * The crawl loop. It pulls ready hosts from the scheduler (round-robin, polite), takes each host's
 * next URL from the SQLite frontier, checks robots.txt, fetches, parses, stores the document and
 * queues the page's links. It knows nothing of the index or the server: it emits events
 * (`document`, `removed`, `fetch`, `done`) and the orchestrator routes them.
 */
import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import type { DocumentStore } from '../store/documents.ts';
import type { StoredDocument } from '../store/types.ts';
import type { Fetcher, FetchResponse } from './fetch/fetcher.ts';
import type { Frontier, Outcome, QueuedUrl } from './frontier/frontier.ts';
import type { HostScheduler } from './frontier/hosts.ts';
import type { Extracted, PageParser } from './parse/index.ts';
import { productToken, type RobotsCache, type RobotsRules } from './robots/robots.ts';
import { admit, type UrlPolicy } from './urls/filters.ts';

export type CrawlerLimits = {
  readonly concurrency: number;
  readonly maxPages: number;
  readonly maxRedirects: number;
  /** Follow rel="nofollow" links too. */
  readonly followNofollow?: boolean;
};

export type FetchEvent = { readonly url: string; readonly status: number | string; readonly ms: number; readonly bytes: number; readonly outcome: Outcome['kind'] | 'retry' };

export type CrawlerEvents = {
  /** A page was stored: index it. */
  document: [StoredDocument];
  /** A stored page must leave the index (it became noindex). */
  removed: [number];
  /** A request ended, whatever its outcome. */
  fetch: [FetchEvent];
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
  /** Normalizer and filters: how raw links become queued URLs. */
  readonly policy: UrlPolicy;
  readonly limits: CrawlerLimits;
  readonly userAgent: string;
  readonly now?: () => number;
  /** Where a bounded failure is reported (never thrown). */
  readonly log?: (message: string) => void;
};

const MAX_ATTEMPTS = 3;
const ROBOTS_GIVE_UP_AFTER = 3;
/** How long stop() lets in-flight requests finish before it aborts them and puts them back. */
const STOP_GRACE_MS = 5000;
const TRANSIENT = new Set(['timeout', 'reset', 'refused', 'dns', 'other']);

export class Crawler extends EventEmitter<CrawlerEvents> {
  private active = 0;
  private stopping = false;
  private finished = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly robotsLoading = new Set<string>();
  private readonly robotsFailures = new Map<string, number>();
  private readonly abort = new AbortController();
  private readonly recent: number[] = [];
  private donePromise: Promise<CrawlerEvents['done'][0]> | undefined;
  private readonly now: () => number;
  private readonly token: string;

  constructor(private readonly d: CrawlerDeps) {
    super();
    this.now = d.now ?? Date.now;
    this.token = productToken(d.userAgent);
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
      this.d.frontier.enqueue(a.url, 0, 0, a.fetchUrl);
      queued.push(a.url);
      this.d.scheduler.addWork(new URL(a.url).host);
    }
    if (this.donePromise && !this.finished) this.pump();
    return { queued, rejected };
  }

  /** Runs until nothing in scope is left, a limit is hit, or stop() is called. */
  run(): Promise<CrawlerEvents['done'][0]> {
    this.donePromise ??= new Promise((resolve) => {
      this.once('done', resolve);
      const recovered = this.d.frontier.recoverInFlight();
      if (recovered) this.d.log?.(`resumed: ${recovered} URLs that were in flight when the last run stopped are queued again`);
      for (const host of this.d.frontier.hostsWithWork()) this.d.scheduler.addWork(host);
      queueMicrotask(() => this.pump());
    });
    return this.donePromise;
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

  inFlight(): number {
    return this.active;
  }

  /** Requests completed per second over the last 10 seconds. */
  pagesPerSecond(): number {
    const cutoff = this.now() - 10_000;
    while (this.recent.length && this.recent[0]! < cutoff) this.recent.shift();
    return Math.round((this.recent.length / 10) * 10) / 10;
  }

  /** True when the pages fetched, plus those in flight that may still be, reach limits.maxPages. */
  private limitReached(counting = this.active): boolean {
    return this.d.limits.maxPages > 0 && this.d.frontier.counts().fetched + counting >= this.d.limits.maxPages;
  }

  private pump(): void {
    if (this.stopping || this.finished) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.now();
    while (this.active < this.d.limits.concurrency && !this.limitReached()) {
      const host = this.d.scheduler.pick(now);
      if (!host) break;
      const q = this.d.frontier.next(host);
      if (!q) {
        this.d.scheduler.noWork(host);
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
        this.d.frontier.finish(q.id, { kind: 'excluded', reason: 'robots.txt disallows it' });
        this.d.frontier.countRejection('robots');
        continue;
      }
      this.active++;
      this.d.scheduler.begin(host);
      void this.process(q).finally(() => {
        this.active--;
        this.pump();
      });
    }
    this.checkDone();
    this.armTimer();
  }

  private armTimer(): void {
    if (this.finished || this.stopping || this.timer) return;
    const at = this.d.scheduler.nextReadyAt();
    if (at === undefined || this.active >= this.d.limits.concurrency) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(5, at - this.now()));
  }

  private checkDone(): void {
    if (this.active > 0 || this.robotsLoading.size > 0) return;
    if (this.limitReached(0)) this.finish('limit');
    else if (!this.d.scheduler.hasWork()) this.finish('exhausted');
  }

  private finish(reason: 'exhausted' | 'limit' | 'stopped'): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
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
    this.d.scheduler.end(host, this.now(), { ok });
    if (!ok) {
      const failures = (this.robotsFailures.get(host) ?? 0) + 1;
      this.robotsFailures.set(host, failures);
      if (failures >= ROBOTS_GIVE_UP_AFTER) {
        const n = this.giveUpHost(host, `robots.txt unavailable (${rules.detail})`);
        this.d.log?.(`giving up on ${host}: robots.txt unavailable ${failures} times (${rules.detail}); ${n} URLs marked failed`);
      }
      return;
    }
    this.robotsFailures.delete(host);
    this.d.scheduler.setCrawlDelay(host, rules.crawlDelaySeconds);
    // Sitemaps named by robots.txt, else the conventional /sitemap.xml.
    const sitemaps = rules.sitemaps.length ? rules.sitemaps : [new URL('/sitemap.xml', origin).href];
    this.queueLinks(sitemaps.map((url) => ({ url })), 0, undefined);
  }

  private giveUpHost(host: string, reason: string): number {
    this.d.scheduler.noWork(host);
    return this.d.frontier.failHost(host, reason);
  }

  private async process(q: QueuedUrl): Promise<void> {
    const started = this.now();
    const host = q.host;
    const res = await this.d.fetcher.fetch(q.fetchUrl, this.abort.signal);
    const ended = this.now();
    if (res.kind === 'error' && res.code === 'aborted') {
      this.d.frontier.putBack(q.id);
      this.d.scheduler.end(host, ended, { ok: true });
      return;
    }
    this.recent.push(ended);
    // The request is over: the host's politeness clock starts now, not after parsing.
    const hostOk = res.kind === 'response' && res.status !== 429 && res.status < 500;
    this.d.scheduler.end(host, ended, { ok: hostOk, retryAfterMs: res.kind === 'response' ? res.retryAfterMs : undefined });
    let outcome: Outcome | 'retry';
    try {
      if (res.kind === 'error') outcome = this.onNetworkError(q, res.code, res.message);
      else if (res.status >= 200 && res.status < 300) {
        const extracted = await this.d.parser.parse({ body: res.body, contentType: res.contentType, url: q.fetchUrl, robotsToken: this.token.toLowerCase() });
        outcome = this.onContent(q, res, extracted);
      } else outcome = this.onStatus(q, res);
    } catch (e) {
      // A bug or a page that breaks the parser must cost one URL, never the crawl.
      this.d.log?.(`${q.fetchUrl}: ${(e as Error).stack ?? String(e)}`);
      outcome = { kind: 'failed', reason: `internal error: ${(e as Error).message}` };
    }
    if (outcome === 'retry') {
      this.d.frontier.requeue(q.id);
      this.d.scheduler.addWork(host);
    } else {
      this.d.frontier.finish(q.id, outcome);
    }
    this.emit('fetch', {
      url: q.url,
      status: res.kind === 'response' ? res.status : res.code,
      ms: ended - started,
      bytes: res.kind === 'response' ? res.wireBytes : 0,
      outcome: outcome === 'retry' ? 'retry' : outcome.kind,
    });
  }

  private onNetworkError(q: QueuedUrl, code: string, message: string): Outcome | 'retry' {
    if (TRANSIENT.has(code) && q.attempts < MAX_ATTEMPTS) return 'retry';
    return { kind: 'failed', reason: `${code}: ${message}`.slice(0, 500) };
  }

  /** A response that is not 2xx: a redirect, a retry, or a failure. */
  private onStatus(q: QueuedUrl, res: FetchResponse): Outcome | 'retry' {
    const { status } = res;
    if (status >= 300 && status < 400 && res.location !== undefined) return this.onRedirect(q, res.location, status);
    if (status === 429 || status >= 500) return q.attempts < MAX_ATTEMPTS ? 'retry' : { kind: 'failed', status, reason: `HTTP ${status}` };
    if (status >= 400) return { kind: 'failed', status, reason: `HTTP ${status}` };
    return { kind: 'failed', status, reason: `unexpected HTTP ${status}` };
  }

  /** A 2xx response, parsed: store and index the page, queue its links. */
  private onContent(q: QueuedUrl, res: FetchResponse, extracted: Extracted): Outcome {
    const { status } = res;
    if (extracted.kind === 'unsupported') return { kind: 'excluded', status, reason: `unsupported content type ${extracted.type}` };
    if (extracted.kind === 'sitemap') {
      this.queueLinks([...extracted.pages, ...extracted.sitemaps.map((url) => ({ url }))], q.depth, q.fetchUrl);
      return { kind: 'excluded', status, reason: `sitemap with ${extracted.pages.length} pages and ${extracted.sitemaps.length} sitemaps (not a document)` };
    }
    const { page } = extracted;
    const type = res.contentType.split(';')[0]!.trim();
    const xRobots = (res.headers['x-robots-tag'] ?? '').toLowerCase();
    const noindex = page.noindex || /\b(noindex|none)\b/.test(xRobots);
    const nofollow = page.nofollow || /\b(nofollow|none)\b/.test(xRobots);
    if (!nofollow) this.queueLinks(this.d.limits.followNofollow ? page.links : page.links.filter((l) => !l.nofollow), q.depth + 1, q.fetchUrl);
    if (noindex) {
      if (this.d.documents.remove(q.id) !== undefined) this.emit('removed', q.id);
      return { kind: 'excluded', status, reason: page.noindex ? 'noindex' : 'noindex (X-Robots-Tag)' };
    }
    // <link rel="canonical"> to another page in scope: that page is indexed instead of this one.
    const canonical = page.canonical ? admit(this.d.policy, page.canonical, q.depth) : undefined;
    if (canonical?.ok && canonical.url !== q.url) {
      this.queueLinks([{ url: page.canonical! }], q.depth, q.fetchUrl);
      if (this.d.documents.remove(q.id) !== undefined) this.emit('removed', q.id);
      return { kind: 'excluded', status, reason: `canonical is ${canonical.url}` };
    }
    const hash = createHash('sha256').update(page.title).update('\0').update(page.text).digest('hex');
    // The content-seen test (Mercator): the same content under another URL is stored once.
    const seen = page.text ? this.d.documents.findByHash(hash) : undefined;
    if (seen && seen.id !== q.id) {
      this.d.documents.addDuplicate(q.id, seen.id);
      if (this.d.documents.remove(q.id) !== undefined) this.emit('removed', q.id);
      return { kind: 'excluded', status, reason: `duplicate of ${seen.url}` };
    }
    const doc: StoredDocument = {
      id: q.id,
      // The address that answered: it works in a browser even when the identity is an alias.
      url: q.fetchUrl,
      title: page.title.slice(0, 1000),
      description: page.description.slice(0, 5000),
      headings: page.headings.map((h) => h.slice(0, 500)),
      text: page.text,
      contentType: type || 'text/html',
      bytes: res.body.length,
      truncated: res.truncated,
      httpStatus: status,
      fetchedAt: this.now(),
      hash,
    };
    this.d.documents.put(doc);
    this.emit('document', doc);
    return { kind: 'fetched', status };
  }

  private onRedirect(q: QueuedUrl, location: string, status: number): Outcome {
    if (q.hops >= this.d.limits.maxRedirects) return { kind: 'failed', status, reason: `more than ${this.d.limits.maxRedirects} redirects` };
    const a = admit(this.d.policy, location, q.depth, q.fetchUrl);
    if (!a.ok) {
      this.d.frontier.countRejection(a.reason);
      return { kind: 'redirected', status, to: `${a.url} (not followed: ${a.reason})` };
    }
    if (this.d.frontier.enqueue(a.url, q.depth, q.hops + 1, a.fetchUrl)) this.d.scheduler.addWork(new URL(a.url).host);
    return { kind: 'redirected', status, to: a.url };
  }

  private queueLinks(links: readonly { url: string; lastmod?: string }[], depth: number, base: string | undefined): void {
    const admitted: { url: string; fetchUrl: string; depth: number; lastmod?: string }[] = [];
    const rejected = new Map<string, number>();
    for (const link of links) {
      const a = admit(this.d.policy, link.url, depth, base);
      if (a.ok) admitted.push({ url: a.url, fetchUrl: a.fetchUrl, depth, ...(link.lastmod ? { lastmod: link.lastmod } : {}) });
      else rejected.set(a.reason, (rejected.get(a.reason) ?? 0) + 1);
    }
    for (const host of this.d.frontier.enqueueMany(admitted, rejected)) this.d.scheduler.addWork(host);
  }
}
