/**
 * The crawl loop. It pulls ready hosts from the scheduler (round-robin, polite), takes each host's
 * next URL from the frontier, checks robots.txt, fetches, parses (in a worker when there is a spare
 * core), asks the policy what the fetch comes to (outcome.ts), and writes it in one commit: the
 * page, its record and its links. It knows nothing of the index or the server: a stored page goes
 * to the index sink it was given, and it emits events (`document`, `removed`, `fetch`, `stats`,
 * `done`) for whoever watches.
 */
import { EventEmitter } from 'node:events';
import type { Outcome, QueuedUrl } from '../model/index.ts';
import { ERRORS, fromFetchCode, fromHttpStatus, type ErrorCode, type RetryPolicy } from './errors.ts';
import type { Fetcher, FetchResponse, FetchResult } from './fetch/fetcher.ts';
import { judge, SEED_TUNNEL, type Verdict } from './focus/focus.ts';
import type { RevisitPolicy } from './frontier/revisit.ts';
import { LinkAdmitter, type Admitted } from './links.ts';
import { CrawlLoop } from './loop.ts';
import { contentLanguageOf, decideOutcome, pageHash, type Decision, type OutcomeRules } from './outcome.ts';
import type { Extracted, ParseJob } from './parse/extract.ts';
import { ParseFailure } from './parse/pool.ts';
import { parseAndRender, type RenderedPage } from './render/stage.ts';
import { productToken, type RobotsRules } from './robots/robots.ts';
import { StatsRecorder } from './stats.ts';
import type { PageSettings } from './template/extraction.ts';
import { admit } from './urls/filters.ts';
import type { CrawlerDeps, CrawlerEvents } from './types.ts';

export type { CrawlerDeps, CrawlerEvents, CrawlerLimits, IndexSink, RevisitMode } from './types.ts';

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 10_000 };
const DEFAULT_REVISIT: RevisitPolicy = { minMs: 3_600_000, maxMs: 7 * 86_400_000 };

export class Crawler extends EventEmitter<CrawlerEvents> {
  readonly stats: StatsRecorder;
  private readonly loop: CrawlLoop;
  private readonly links: LinkAdmitter;
  private readonly rules: OutcomeRules;
  private readonly now: () => number;
  /** The user agent's product token, lowercased: `<meta name="TOKEN">` counts like robots. */
  private readonly token: string;
  /** Archive captures being handled now (ingest): like requests in flight, they share group commits. */
  private ingesting = 0;

  constructor(private readonly d: CrawlerDeps) {
    super();
    this.now = d.now ?? Date.now;
    this.token = productToken(d.userAgent).toLowerCase();
    this.stats = new StatsRecorder(this.now);
    this.links = new LinkAdmitter(d.policy);
    this.rules = {
      admit: (raw, depth, base) => admit(d.policy, raw, depth, base),
      maxRedirects: d.limits.maxRedirects,
      followNofollow: d.limits.followNofollow ?? false,
      retry: d.limits.retry ?? DEFAULT_RETRY,
      revisit: d.limits.revisit ?? DEFAULT_REVISIT,
      focus: d.focus,
    };
    this.loop = new CrawlLoop({
      ...d,
      now: this.now,
      stats: this.stats,
      emitter: this,
      process: (q) => this.process(q),
      onRobots: (origin, rules) => this.robotsLoaded(origin, rules),
    });
  }

  /** Queues seeds (normalized and filtered; rejections are returned with their reasons). */
  async addSeeds(urls: readonly string[]): Promise<{ queued: string[]; rejected: { url: string; reason: string }[] }> {
    const queued: string[] = [];
    const rejected: { url: string; reason: string }[] = [];
    for (const raw of urls) {
      const a = admit(this.d.policy, raw, 0);
      if (!a.ok) {
        rejected.push({ url: raw, reason: a.detail ? `${a.reason} (${a.detail})` : a.reason });
        continue;
      }
      await this.d.store.seeds.add([a.fetchUrl], this.now());
      // (A seed's links are followed in a focused crawl even when it is not relevant: SEED_TUNNEL.)
      await this.d.frontier.enqueue({ urls: [{ url: a.url, depth: 0, fetchUrl: a.fetchUrl, tunnel: SEED_TUNNEL }] });
      queued.push(a.url);
      this.d.scheduler.addWork(new URL(a.url).host);
    }
    if (queued.length) this.wake();
    return { queued, rejected };
  }

  /** Runs until nothing in scope is left, a limit is hit, or stop() is called. */
  run(): Promise<CrawlerEvents['done'][0]> {
    return this.loop.run();
  }

  /**
   * New work arrived (seeds, pages to recrawl): if the crawl had run out of work, it runs again
   * (and emits 'done' again when it runs out); if it is running, it looks for the work now.
   * A crawl stopped by stop() or never run stays as it is.
   */
  wake(): void {
    this.loop.wake();
  }

  /** No new requests until resume(); requests in flight finish. The crawl does not end while paused. */
  pause(): void {
    this.loop.pause();
  }

  resume(): void {
    this.loop.resume();
  }

  get paused(): boolean {
    return this.loop.paused;
  }

  /** Graceful stop: no new requests; in-flight ones finish (or are put back after a grace period). */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  get running(): boolean {
    return this.loop.running;
  }

  /** This crawler's name among the workers sharing the frontier (undefined: the store is its own). */
  get worker(): string | undefined {
    return this.loop.leases?.shared.worker;
  }

  /** Requests in flight now. */
  inFlight(): number {
    return this.loop.fetching;
  }

  /** Requests completed per second over the last 10 seconds. */
  pagesPerSecond(): number {
    return this.stats.pagesPerSecond();
  }

  /** A host's robots.txt was loaded: its sitemaps (else the conventional /sitemap.xml) feed the frontier. */
  private async robotsLoaded(origin: string, rules: RobotsRules): Promise<void> {
    if (rules.state === 'unavailable') return;
    const sitemaps = rules.sitemaps.length ? rules.sitemaps : [new URL('/sitemap.xml', origin).href];
    const admitted = await this.links.admit([{ links: sitemaps.map((url) => ({ url })), depth: 0, tunnel: 0 }]);
    await this.queue(admitted);
  }

  /** Fetches a URL the loop took, decides what it comes to, and writes that in one commit. */
  private async process(q: QueuedUrl): Promise<void> {
    const started = this.now();
    const t0 = performance.now();
    const host = q.host;
    // A page Trawl holds is asked for conditionally: unchanged, it costs no download, no parse
    // and no reindexing.
    const held = await this.d.store.documents.has(q.id);
    const conditional = held && Boolean(q.etag || q.lastModified || q.hash);
    let res: Awaited<ReturnType<Fetcher['fetch']>>;
    try {
      res = await this.d.fetcher.fetch(
        q.fetchUrl,
        this.loop.signal,
        conditional ? { etag: q.etag ?? undefined, lastModified: q.lastModified ?? undefined } : undefined,
      );
    } finally {
      this.loop.fetching--;
    }
    const ended = this.now();
    if (res.kind === 'error' && res.code === 'aborted') {
      await this.d.store.urls.putBack(q.id);
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
    if (!this.loop.deadHosts.has(host) && this.d.scheduler.suspensions(host) >= (this.d.limits.maxSuspensions ?? 3)) {
      await this.loop.giveUpHost(host, 'host-suspended', `suspended ${this.d.scheduler.suspensions(host)} times; last error: ${error ?? 'unknown'}`);
    }
    // The connection is free: the next request starts while this page is parsed.
    this.loop.pump();
    await this.handle(q, res, { started, ended, held, conditional });
  }

  /**
   * A response that did not come from this crawl's fetch — a record of a web archive (trawl import)
   * — handled as if it had: its URL recorded, the page parsed, stored and indexed with its capture
   * date, its links' anchor text counted. Links are queued only as far as the policy lets them
   * (an import's policy stops at depth 0: nothing is queued to be fetched).
   */
  async ingest(url: string, res: FetchResponse, capturedAt: number): Promise<{ outcome: Outcome['kind'] } | { refused: string }> {
    const a = admit(this.d.policy, url, 0);
    if (!a.ok) return { refused: a.detail ? `${a.reason} (${a.detail})` : a.reason };
    const q = await this.d.store.urls.claim({ url: a.url, fetchUrl: a.fetchUrl, depth: 0, tunnel: 0 }, capturedAt);
    const held = await this.d.store.documents.has(q.id);
    // (Counted with the loop's requests: captures imported side by side share group commits.)
    this.ingesting++;
    try {
      const outcome = await this.handle(q, res, { started: capturedAt, ended: capturedAt, held, conditional: false, at: capturedAt });
      return { outcome };
    } finally {
      this.ingesting--;
    }
  }

  /** What a response comes to, written in one commit; the page to the index; the fetch told. */
  private async handle(
    q: QueuedUrl,
    res: FetchResult,
    f: { started: number; ended: number; held: boolean; conditional: boolean; at?: number },
  ): Promise<Outcome['kind']> {
    const { started, ended, held, conditional } = f;
    const host = q.host;
    const now = () => f.at ?? this.now();
    let decision: Decision;
    let analysis: unknown;
    try {
      let extracted: Extracted | undefined;
      // (The host's template now: a page parsed with an older one is cleaned once stored.)
      const extraction = this.d.extraction?.forPage(host, q.fetchUrl);
      let rendering: RenderedPage | undefined;
      if (res.kind === 'response' && res.status >= 200 && res.status < 300) {
        const p0 = performance.now();
        // (Rendered in a browser too, when the page needs it: crawler/render.)
        rendering = await parseAndRender(this.d.render, res, this.jobOf(q, res, extraction), (job) => this.d.parser.parse(job), this.loop.signal);
        extracted = rendering.extracted;
        if (rendering.ms !== undefined) this.stats.time('render', rendering.ms);
        this.stats.time('parse', performance.now() - p0 - (rendering.ms ?? 0));
      }
      // (From here on the page's work is on the main thread: it waits for its turn.)
      await this.d.slices?.turn();
      let verdict: Verdict | undefined;
      let hash: string | undefined;
      let sameContent: { id: number; url: string } | undefined;
      if (extracted?.kind === 'page') {
        analysis = extracted.analysis;
        if (this.d.focus) {
          const c0 = performance.now();
          verdict = await judge(this.d.focus, { ...extracted.page, url: q.fetchUrl });
          this.stats.time('classify', performance.now() - c0);
        }
        hash = pageHash(extracted.page);
        // (A store whose commit tests the content itself gives the commit up for a duplicate, below.)
        if (extracted.page.text && !this.d.store.testsContentAtCommit) sameContent = await this.d.store.documents.findByHash(hash);
      }
      const facts = {
        q,
        res,
        held,
        conditional,
        extracted,
        verdict,
        hash,
        sameContent,
        deadHost: this.loop.deadHosts.get(host),
        now: now(),
        rendered: rendering?.rendered,
        renderFailed: rendering?.failed,
        loginPage: this.d.auth?.isLoginPage(q.fetchUrl) ?? false,
      };
      decision = decideOutcome(facts, this.rules);
      const seen = await this.commit(q, decision, analysis, now());
      if (seen) {
        // Another worker stored the same content since the test above (or the store tests it only at
        // its commit): this page is its duplicate after all.
        decision = decideOutcome({ ...facts, sameContent: seen }, this.rules);
        await this.commit(q, decision, analysis, now());
      }
      const blocks = extracted?.kind === 'page' ? extracted.page.blocks : undefined;
      if (blocks) this.d.extraction?.parsed(host, blocks, extraction?.version ?? 0, decision.effects.document ? q.id : undefined);
    } catch (e) {
      // A bug or a page that breaks the parser must cost one URL, never the crawl.
      const outcome =
        e instanceof ParseFailure
          ? { kind: 'dead' as const, error: 'unparsable' as const, reason: e.message }
          : { kind: 'dead' as const, error: 'internal' as const, reason: `internal error: ${(e as Error).message}` };
      if (!(e instanceof ParseFailure)) this.d.log?.error(`${q.fetchUrl}: ${(e as Error).stack ?? String(e)}`);
      await this.d.store.urls.finish(q.id, { outcome, revisit: null }, now());
      decision = { outcome, revisit: null, effects: { links: [], enqueue: [], rejected: new Map() } };
    }
    const { outcome } = decision;
    // (Archived as received, whatever it came to: the archive keeps what the web said.)
    if (this.d.archive && res.kind === 'response') await this.d.archive.fetched(q.id, q.fetchUrl, res, decision.change === 'unchanged');
    if (outcome.kind === 'failed') this.d.scheduler.addWork(host);
    // Alone in the pipeline: nothing to share a commit with, so commit now (a slow, polite crawl
    // then loses nothing but what is in flight); otherwise the store's group commits on its own.
    if (this.loop.active + this.ingesting <= 1) await this.d.store.sync();
    this.stats.outcome(outcome.kind);
    this.emit('fetch', {
      url: q.url,
      status: res.kind === 'response' ? res.status : res.code,
      ms: ended - started,
      bytes: res.kind === 'response' ? res.wireBytes : 0,
      outcome: outcome.kind,
      ...(held ? { held } : {}),
      ...(decision.change ? { change: decision.change } : {}),
    });
    return outcome.kind;
  }

  /** What the parser is given of a response: the body and the settings that bound its parsing. */
  private jobOf(q: QueuedUrl, res: FetchResponse, extraction?: PageSettings): ParseJob {
    const { maxLinksPerPage, documents } = this.d.limits;
    return {
      body: res.body,
      contentType: res.contentType,
      url: q.fetchUrl,
      robotsToken: this.token,
      ...(res.truncated ? { truncated: true } : {}),
      maxLinks: maxLinksPerPage,
      documentTypes: documents.types,
      maxPages: documents.maxPages,
      maxDocumentBytes: documents.maxBytes,
      ...(extraction?.exclude ? { exclude: extraction.exclude } : {}),
      ...(extraction?.template ? { template: extraction.template } : {}),
      // (The extractor for the index stems the page by its language: it must know this one.)
      ...(res.headers['content-language'] ? { contentLanguage: contentLanguageOf(res) } : {}),
    };
  }

  /**
   * Writes what a fetch comes to in one commit, then hands the page to the index. Returns the
   * document with the same content that another process stored first, when the store gave the
   * commit up for it (FetchCommitResult.contentSeen): nothing was written.
   */
  private async commit(q: QueuedUrl, decision: Decision, analysis: unknown, now: number): Promise<{ id: number; url: string } | undefined> {
    const { effects } = decision;
    const admitted = await this.links.admit(effects.links, this.d.slices);
    this.stats.time('links', admitted.ms);
    for (const e of effects.enqueue) admitted.urls.push(e);
    for (const [reason, n] of effects.rejected) admitted.rejected.set(reason, (admitted.rejected.get(reason) ?? 0) + n);
    const doc = effects.document;
    const sequence = doc ? this.d.index?.sequenceOf(analysis) : undefined;
    const s0 = performance.now();
    const result = await this.d.store.commitFetch(
      {
        id: q.id,
        outcome: decision.outcome,
        revisit: decision.revisit,
        ...(effects.unindex ? { unindex: true } : {}),
        ...(effects.duplicateOf !== undefined ? { duplicateOf: effects.duplicateOf } : {}),
        ...(doc ? { document: { doc, ...(sequence ? { sequence } : {}) } } : {}),
        ...(effects.touch ? { touch: now } : {}),
        links: { urls: admitted.urls, rejected: admitted.rejected },
      },
      now,
    );
    this.stats.time('store', performance.now() - s0);
    if (result.contentSeen) return result.contentSeen;
    this.afterQueued(admitted, result.enqueued);
    if (effects.sitemap) this.loop.lookForRevisits();
    if (result.removed !== undefined) {
      await this.d.index?.remove(q.id, result.removed);
      this.emit('removed', q.id);
    }
    if (doc && result.stored !== undefined) {
      const i0 = performance.now();
      await this.d.index?.put(doc, analysis, result.stored);
      this.stats.time('index', performance.now() - i0);
      this.emit('document', doc, analysis);
    }
    return undefined;
  }

  /** Queues admitted links outside a page's commit (seeds' sitemaps). */
  private async queue(admitted: Admitted): Promise<void> {
    const result = await this.d.frontier.enqueue({ urls: admitted.urls, rejected: admitted.rejected });
    this.afterQueued(admitted, result, false);
  }

  /** What follows a batch of links in the frontier: the scheduler, the seen-cache and the anchor text learn of it. */
  private afterQueued(admitted: Admitted, result: { readonly added: readonly string[]; readonly hosts: ReadonlySet<string> }, countHosts = true): void {
    if (countHosts) this.d.frontier.added(result.added);
    for (const host of result.hosts) this.d.scheduler.addWork(host);
    this.links.remember(admitted);
    for (const { source, links } of admitted.anchors) {
      this.d.store.anchors.add(source, links);
      this.emit('anchors', [...new Set(links.map((a) => a.target))]);
    }
  }
}

export type { ErrorCode };
