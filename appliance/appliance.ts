/**
 * The orchestrator: the only module that knows every stage. It opens a data directory (lock,
 * crawl database, index), wires the crawler's events into the index, flushes the index
 * periodically and on close, and answers status questions for the CLI and the server.
 *
 * The data flow, in order:
 *   seeds → normalize + filters (crawler/urls) → frontier (crawler/frontier, SQLite)
 *   → robots (crawler/robots) → fetch (crawler/fetch) → parse (crawler/parse)
 *   → document store (store/) → index (indexer/, in RAM, flushed) → search server (search-ui/)
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { ApplianceStatus, CrawlStats, FetchEvent, UrlExplanation } from '../model/index.ts';
import { admit, Crawler, Fetcher, Frontier, HostScheduler, ParsePool, RobotsCache, buildScope, createNormalizer, defaultFilters, defaultParseWorkers, parseHostAlias, type RevisitMode, type Target, type UrlPolicy } from '../crawler/index.ts';
import { focusing, loadFocus, loadTopicFocus, type Focus } from '../crawler/focus/index.ts';
import { flushIndex, IndexFormatError, isAnalysis, loadIndex, SearchIndex, setStemming, type FlushInfo } from '../indexer/index.ts';
import { acquireLock, AnchorStore, DocumentStore, openDb, type Db, type Lock } from '../store/index.ts';
import { extract as extractForIndex } from './extract-for-index.ts';

export type { ApplianceStatus, CrawlStatus, FocusStatus, IndexStatus, RecrawlStatus, UrlExplanation } from '../model/index.ts';

export type Logger = (message: string) => void;

export type OpenOptions = {
  /** Name of the command that opens it, for the lock file; omit to open without the lock (read only use). */
  readonly lockFor?: string;
  readonly log?: Logger;
};

const RECENT_FETCHES = 20;
/** The longest a sleeping continuous crawl waits before it looks at the schedule again. */
const MAX_SLEEP_MS = 3_600_000;

export class Appliance {
  readonly dataDir: string;
  readonly db: Db;
  readonly documents: DocumentStore;
  readonly frontier: Frontier;
  readonly index: SearchIndex;
  crawler: Crawler | undefined;
  private fetcher: Fetcher | undefined;
  private parser: ParsePool | undefined;
  private scheduler: HostScheduler | undefined;
  /** The URL normalizer and filters of the crawl, once createCrawler built them. */
  private policy: UrlPolicy | undefined;
  private lastStats: CrawlStats | null = null;
  private lastFlush: Pick<FlushInfo, 'createdAt' | 'lastSeq'> & { ms: number | null; bytes: number | null } | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly recent: FetchEvent[] = [];
  readonly anchors: AnchorStore;
  /** Identities of pages that gained inbound anchor text since their anchor field was last read. */
  private readonly staleAnchors = new Set<string>();
  private anchorRefresh: Promise<number> | undefined;
  /** The index changed without a document change (anchor refresh): the next flush must write. */
  private indexChanged = false;
  /** The flush being written, if any. */
  private flushing: Promise<unknown> | undefined;
  private anchorTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private revisitMode: RevisitMode = 'off';
  /** Wakes a continuous crawl that ran out of work when the next revisit falls due. */
  private revisitTimer: NodeJS.Timeout | undefined;
  /** What this run's revisits found; `round` is since the crawl last ran out of work (for the log). */
  private readonly revisits = { revisited: 0, changed: 0, unchanged: 0, removed: 0 };
  private round = { revisited: 0, changed: 0, unchanged: 0, removed: 0 };
  /** The focused crawl's classifier and policy, once loaded (loadFocus, or createCrawler for a topic file alone). */
  private focus: Focus | undefined;

  private constructor(
    readonly config: Readonly<Config>,
    private readonly lock: Lock | undefined,
    private readonly log: Logger,
  ) {
    this.dataDir = resolve(config.dataDir);
    // Documents and queries must be tokenized alike (parse workers get the same setting).
    setStemming(config.index.stemming);
    this.db = openDb(join(this.dataDir, 'crawl.db'));
    this.documents = new DocumentStore(this.db);
    this.frontier = new Frontier(this.db);
    this.anchors = new AnchorStore(this.db);
    const stemming = config.index.stemming;
    this.index = new SearchIndex(
      (id) => this.documents.get(id),
      (id) => this.anchors.of(id),
      {},
      (ids) => this.documents.sequencesOf(ids, stemming),
    );
  }

  /** Opens (creating if needed) the data directory and loads the index. */
  static async open(config: Readonly<Config>, options: OpenOptions = {}): Promise<Appliance> {
    const dir = resolve(config.dataDir);
    mkdirSync(dir, { recursive: true });
    const lock = options.lockFor ? acquireLock(dir, options.lockFor) : undefined;
    try {
      const app = new Appliance(config, lock, options.log ?? (() => undefined));
      app.loadIndex();
      return app;
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  get indexDir(): string {
    return join(this.dataDir, 'index');
  }

  /** Loads the last flush and replays the changes after it; rebuilds from SQLite if there is no usable flush. */
  private loadIndex(): void {
    const started = performance.now();
    let manifest;
    try {
      manifest = loadIndex(this.indexDir, this.index);
    } catch (e) {
      if (!(e instanceof IndexFormatError) && !(e instanceof SyntaxError) && (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      this.log(`index in ${this.indexDir} cannot be read (${(e as Error).message}); rebuilding it from the crawl database`);
      manifest = undefined;
    }
    if (!manifest) {
      for (const doc of this.documents.all()) this.index.upsert(doc);
    } else {
      this.lastFlush = { createdAt: manifest.createdAt, lastSeq: manifest.lastSeq, ms: null, bytes: manifest.bytes ?? null };
      let replayed = 0;
      const last = new Map<number, 'put' | 'remove'>();
      for (const c of this.documents.changesSince(manifest.lastSeq)) last.set(c.docId, c.op);
      for (const [id, op] of last) {
        const doc = op === 'put' ? this.documents.get(id) : undefined;
        if (doc) this.index.upsert(doc);
        else this.index.remove(id);
        replayed++;
      }
      if (replayed) this.log(`index: replayed ${replayed} changes made after the last flush`);
    }
    const ms = Math.round(performance.now() - started);
    if (this.index.documentCount) this.log(`index: ${this.index.documentCount} documents loaded in ${ms} ms`);
  }

  /**
   * Loads the focus of a focused crawl (config `focus`): the topic file, and the classifier module
   * if one is named. Throws TopicError (naming the line) or ClassifierError. Call it before
   * createCrawler when a module is configured; a topic file alone createCrawler loads by itself.
   */
  async loadFocus(): Promise<Focus | undefined> {
    if (!this.focus && focusing(this.config.focus)) this.focus = await loadFocus(this.config.focus);
    return this.focus;
  }

  /**
   * Builds the crawler over this data directory. Seeds given here are added to the stored ones;
   * `revisits` says what it does with pages whose revisit is due (RevisitMode: `due` for `trawl
   * crawl` and `trawl recrawl --due`, `off` for a pass over named pages, `continuous` for `trawl
   * start`, which this object then wakes when the next page falls due).
   */
  createCrawler(extraSeeds: readonly string[] = [], revisits: RevisitMode = 'due'): { crawler: Crawler; rejectedSeeds: { url: string; reason: string }[] } {
    const c = this.config;
    const normalize = createNormalizer({
      hostAliases: c.urls.hostAliases.map(parseHostAlias),
      stripParams: c.urls.stripParams.map((p) => new RegExp(p, 'i')),
      collapseRepeatedParams: c.urls.collapseRepeatedParams,
      dropIndexFiles: c.urls.dropIndexFiles,
      lowercasePath: c.urls.lowercasePath,
    });
    // The default scope is the seeds' hosts as identities (after host aliases), since scope is checked on identities.
    const seeds = [...new Set([...c.seeds, ...extraSeeds, ...this.frontier.seeds()])].map((s) => {
      const n = normalize(s);
      return n.ok ? n.url : s;
    });
    const scope = buildScope({ allow: c.scope.allow, exclude: c.scope.exclude, seeds });
    const filters = defaultFilters(
      scope,
      {
        maxUrlLength: c.limits.maxUrlLength,
        maxDepth: c.limits.maxDepth,
        maxPagesPerHost: c.limits.maxPagesPerHost,
        maxRepeatedSegments: c.limits.maxRepeatedSegments,
        maxQueryParams: c.limits.maxQueryParams,
        maxParamLength: c.limits.maxParamLength,
      },
      (host) => this.frontier.urlsOfHost(host),
    );
    this.fetcher = new Fetcher({ userAgent: c.userAgent, timeoutMs: c.limits.timeoutMs, maxBodyBytes: c.limits.maxBodyBytes, connectionsPerOrigin: c.perHost.maxConnections });
    this.parser = new ParsePool(c.parseWorkers === 'auto' ? defaultParseWorkers() : c.parseWorkers, {
      log: this.log,
      extractor: { module: new URL('./extract-for-index.ts', import.meta.url), extract: extractForIndex, config: { stemming: c.index.stemming } },
    });
    this.scheduler = new HostScheduler({
      maxConnections: c.perHost.maxConnections,
      delayMs: c.perHost.delayMs,
      maxCrawlDelayMs: c.perHost.maxCrawlDelayMs,
      suspendAfterErrors: c.perHost.suspendAfterErrors,
      suspendMs: c.perHost.suspendMs,
    });
    this.policy = { normalize, filters };
    if (!this.focus && focusing(c.focus)) this.focus = loadTopicFocus(c.focus);
    if (this.focus) this.log(`focused crawl: ${this.focus.classifier.name}; links of pages that are not relevant followed ${this.focus.tunnel} page(s) deep`);
    const crawler = new Crawler({
      frontier: this.frontier,
      scheduler: this.scheduler,
      robots: new RobotsCache(this.db, this.fetcher, c.userAgent),
      fetcher: this.fetcher,
      documents: this.documents,
      anchors: this.anchors,
      parser: this.parser,
      policy: this.policy,
      limits: {
        concurrency: c.concurrency,
        maxPages: c.limits.maxPages,
        maxRedirects: c.limits.maxRedirects,
        followNofollow: c.followNofollow,
        retry: c.retry,
        maxSuspensions: c.perHost.maxSuspensions,
        revisit: { minMs: c.recrawl.minInterval, maxMs: c.recrawl.maxInterval },
        revisits,
      },
      focus: this.focus,
      userAgent: c.userAgent,
      log: this.log,
    });
    // Every stored page goes into the in-RAM index at once: searchable from the first fetched page.
    // Its token sequence is kept beside it (in the page's transaction), for exact phrases.
    crawler.on('document', (doc, analysis) => {
      this.index.upsert(doc, analysis);
      if (isAnalysis(analysis)) this.documents.putSequence(doc.id, analysis.sequence, c.index.stemming);
    });
    crawler.on('removed', (id) => this.index.remove(id));
    crawler.on('anchors', (targets) => {
      for (const t of targets) this.staleAnchors.add(t);
    });
    // Pages crawled early were indexed before most links to them were seen.
    crawler.on('done', () => void this.refreshAnchors());
    // Buffered anchor rows reach the database at least every second.
    this.anchorTimer = setInterval(() => {
      try {
        this.anchors.write();
      } catch (e) {
        this.log(`anchor text could not be written (the ranking misses it; pages are not affected): ${(e as Error).message}`);
      }
    }, 1000);
    this.anchorTimer.unref();
    crawler.on('stats', (s) => (this.lastStats = s));
    crawler.on('fetch', (e) => {
      this.recent.unshift(e);
      this.recent.length = Math.min(this.recent.length, RECENT_FETCHES);
      if (e.held) this.countRevisit(e);
    });
    this.revisitMode = revisits;
    crawler.on('done', ({ reason }) => {
      if (revisits === 'continuous' && reason !== 'stopped') this.sleepUntilDue();
    });
    const { rejected } = crawler.addSeeds([...c.seeds, ...extraSeeds]);
    for (const r of rejected) this.log(`seed ${r.url} not queued: ${r.reason}`);
    this.crawler = crawler;
    return { crawler, rejectedSeeds: rejected };
  }

  private countRevisit(e: FetchEvent): void {
    for (const c of [this.revisits, this.round]) {
      c.revisited++;
      if (e.change === 'changed') c.changed++;
      else if (e.change === 'unchanged') c.unchanged++;
      else if (e.change === 'gone') c.removed++;
    }
  }

  /** A continuous crawl that ran out of work: says what the round found, and wakes it when the next page is due. */
  private sleepUntilDue(): void {
    if (this.closed || !this.db.open) return;
    const at = this.frontier.nextRevisitAt();
    const r = this.round;
    if (r.revisited) this.log(`revisited ${r.revisited} pages: ${r.changed} changed, ${r.unchanged} unchanged, ${r.removed} removed`);
    this.round = { revisited: 0, changed: 0, unchanged: 0, removed: 0 };
    clearTimeout(this.revisitTimer);
    if (at === undefined) return;
    this.log(`next revisit due ${new Date(at).toISOString()}`);
    this.revisitTimer = setTimeout(() => this.crawler?.wake(), Math.min(MAX_SLEEP_MS, Math.max(100, at - Date.now())));
    this.revisitTimer.unref();
  }

  startFlushTimer(): void {
    this.flushTimer = setInterval(() => {
      void this.refreshAnchors()
        .then(() => (this.closed ? undefined : this.flush()))
        .catch((e: unknown) => this.log(`index flush failed (the crawl database still has every page; will retry): ${(e as Error).message}`));
    }, this.config.index.flushIntervalMs);
    this.flushTimer.unref();
  }

  /**
   * Brings the anchor field and in-link count of indexed pages up to date with the links recorded
   * since they were indexed, ~10 ms at a time so that searches never wait longer. Resolves with
   * the number of pages updated.
   */
  refreshAnchors(): Promise<number> {
    this.anchorRefresh ??= (async () => {
      this.anchors.write();
      let updated = 0;
      // close() awaits a refresh before it closes the database; the check guards the slices anyway.
      while (this.staleAnchors.size && this.db.open) {
        const sliceStart = performance.now();
        for (const target of this.staleAnchors) {
          this.staleAnchors.delete(target);
          const id = this.frontier.idOf(target);
          if (id !== undefined && this.index.refreshAnchors(id)) updated++;
          if (performance.now() - sliceStart > 10) break;
        }
        await new Promise((r) => setImmediate(r));
      }
      if (updated) this.indexChanged = true;
      return updated;
    })().finally(() => (this.anchorRefresh = undefined));
    return this.anchorRefresh;
  }

  /**
   * Writes the in-RAM index to disk (atomically, a slice at a time: searches go on meanwhile) and
   * forgets the changes it now holds. Resolves to undefined when nothing changed since the last
   * flush. One flush at a time: a call during a flush waits for it, then flushes what is new.
   */
  flush(): Promise<FlushInfo | undefined> {
    const next = (this.flushing ?? Promise.resolve()).then(
      () => this.flushNow(),
      () => this.flushNow(),
    );
    this.flushing = next.catch(() => undefined);
    return next;
  }

  private async flushNow(): Promise<FlushInfo | undefined> {
    // What the flush holds must be committed first: a crash must never leave an index on disk
    // with pages the database does not have.
    this.frontier.commit();
    // Documents are indexed synchronously as they are stored, so the index holds every change up to lastSeq.
    const seq = this.documents.lastSeq();
    if (this.lastFlush && this.lastFlush.lastSeq === seq && !this.indexChanged) return undefined;
    this.indexChanged = false;
    try {
      const info = await flushIndex(this.indexDir, this.index, seq);
      this.lastFlush = info;
      if (this.db.open) this.documents.pruneChanges(seq);
      return info;
    } catch (e) {
      this.indexChanged = true;
      throw e;
    }
  }

  async status(): Promise<ApplianceStatus> {
    const counts = this.frontier.counts();
    const now = Date.now();
    // (The CLI reports the status after close(): what is read from the database is then left out.)
    const open = this.db.open;
    return {
      crawl: {
        running: this.crawler?.running ?? false,
        paused: this.crawler?.paused ?? false,
        fetched: this.frontier.pagesFetched(),
        indexed: counts.indexed,
        queued: counts.queued,
        inFlight: this.crawler?.inFlight() ?? 0,
        failed: counts.failed + counts.dead,
        retrying: counts.failed,
        dead: counts.dead,
        excluded: counts.excluded,
        redirected: counts.redirected,
        pagesPerSecond: this.crawler?.pagesPerSecond() ?? 0,
        stats: this.lastStats,
        hosts: (this.scheduler?.view(now) ?? [])
          .sort((a, b) => b.inFlight - a.inFlight || b.errors - a.errors)
          .slice(0, 50)
          .map((h) => ({ ...h, queued: open ? this.frontier.queuedOf(h.host) : 0 })),
        rejections: open ? this.frontier.rejections().slice(0, 20) : [],
      },
      recrawl: {
        continuous: this.revisitMode === 'continuous',
        due: open ? this.frontier.dueRevisits() : 0,
        nextDueAt: open ? iso(this.frontier.nextRevisitAt()) : null,
        ...this.revisits,
      },
      focus: focusing(this.config.focus)
        ? {
            classifier: this.focus?.classifier.name ?? (this.config.focus.classifier ? `module ${this.config.focus.classifier}` : `topic ${this.config.focus.topicFile}`),
            cutoff: this.config.focus.cutoff,
            ...this.frontier.topicVerdicts(),
          }
        : null,
      index: {
        documents: this.index.documentCount,
        terms: this.index.stats.termCount,
        lastFlushAt: this.lastFlush?.createdAt ?? null,
        lastFlushMs: this.lastFlush?.ms ?? null,
        lastFlushBytes: this.lastFlush?.bytes ?? null,
      },
      recent: [...this.recent],
    };
  }

  /** What Trawl knows of `url`: its record, or why it has none. */
  async explain(url: string): Promise<UrlExplanation> {
    const n = this.policy?.normalize(url) ?? { ok: true as const, url };
    if (!n.ok) return { known: false, url, reason: `not a URL Trawl can crawl: ${n.reason}` };
    const r = this.frontier.record(n.url);
    if (!r) {
      const a = this.policy ? admit(this.policy, url, 0) : undefined;
      const reason = a && !a.ok ? `never queued: it is rejected (${a.detail ? `${a.reason}: ${a.detail}` : a.reason})` : 'never seen: no crawled page links to it yet (add it as a seed to crawl it)';
      return { known: false, url: n.url, reason };
    }
    return {
      known: true,
      url: r.url,
      state: r.state,
      indexed: this.index.stats.has(r.id),
      reason: r.reason,
      error: r.error,
      httpStatus: r.httpStatus,
      attempts: r.attempts,
      depth: r.depth,
      discoveredAt: new Date(r.discoveredAt).toISOString(),
      fetchedAt: iso(r.fetchedAt),
      nextAttemptAt: iso(r.nextAttemptAt),
      revisitAt: iso(r.revisitAt),
      changedAt: iso(r.changedAt),
      contentType: r.contentType,
      lang: r.lang,
      topicScore: r.topicScore,
      relevant: r.relevant,
      classes: (r.state === 'indexed' ? this.documents.get(r.id)?.topic?.classes : undefined) ?? [],
    };
  }

  /** Adds seeds to the crawl (and runs it again if it had finished). */
  async addSeeds(urls: readonly string[]): Promise<{ queued: string[]; rejected: { url: string; reason: string }[] }> {
    return this.running().crawler.addSeeds(urls);
  }

  async pause(): Promise<void> {
    this.crawler?.pause();
  }

  async resume(): Promise<void> {
    this.crawler?.resume();
  }

  /** Queues pages again: one URL, a host's, or all (the crawl runs again if it had finished). */
  async recrawl(target: Target): Promise<{ queued: number }> {
    const { crawler, scheduler } = this.running();
    const t = 'url' in target ? { url: this.identity(target.url) } : target;
    const { count, hosts } = this.frontier.requeue(t);
    for (const h of hosts) scheduler.addWork(h);
    if (count) crawler.wake();
    return { queued: count };
  }

  /** The crawl that actions on it act on; none (trawl serve) is an error. */
  private running(): { crawler: Crawler; scheduler: HostScheduler } {
    if (!this.crawler || !this.scheduler) throw new Error('no crawl is running here (trawl serve): start one with trawl start');
    return { crawler: this.crawler, scheduler: this.scheduler };
  }

  /**
   * Removes a URL's or a host's pages from the index and the document store, and marks their URLs
   * excluded ("removed by an admin") so that the crawl does not bring them back.
   */
  async remove(target: { url: string } | { host: string }): Promise<{ removed: number }> {
    const t = 'url' in target ? { url: this.identity(target.url) } : target;
    let removed = 0;
    for (const id of this.frontier.exclude(t)) {
      if (this.documents.remove(id) !== undefined) removed++;
      this.index.remove(id);
    }
    return { removed };
  }

  /** A URL as the frontier keeps it (normalized), or as given when it cannot be normalized. */
  private identity(url: string): string {
    const n = this.policy?.normalize(url);
    return n?.ok ? n.url : url;
  }

  /** Graceful close: stop the crawl (in-flight work finished or put back), flush, close, unlock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.flushTimer);
    clearInterval(this.anchorTimer);
    clearTimeout(this.revisitTimer);
    try {
      await this.crawler?.stop();
      await this.fetcher?.close();
      await this.parser?.close();
      await this.anchorRefresh;
      if (this.lock) {
        // Links found late reach their pages' anchor field before the last flush (a refresh
        // started by the crawl's end is awaited, not cut short).
        await this.refreshAnchors();
        await this.flush();
      }
    } finally {
      this.frontier.commit();
      this.db.close();
      this.lock?.release();
    }
  }
}

function iso(t: number | null | undefined): string | null {
  return t === undefined || t === null ? null : new Date(t).toISOString();
}
