/**
 * The orchestrator: the only module that knows every stage. It opens a data directory (lock,
 * store, index), builds the crawl (wiring.ts) and routes the stored pages into the index
 * (index-feed.ts), flushes the index periodically and on close (index-flush.ts), and answers
 * status questions and admin actions for the CLI and the server.
 *
 * The data flow, in order:
 *   seeds → normalize + filters (crawler/urls) → frontier (crawler/frontier, over the store)
 *   → robots (crawler/robots) → fetch (crawler/fetch) → parse (crawler/parse) → outcome (crawler/outcome)
 *   → store (store/, one commit per page) → index (indexer/, in RAM, flushed) → search server (search-ui/)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { Crawler, IndexSink, RevisitMode, SharedFrontier } from '../crawler/index.ts';
import { focusing, loadFocus, loadTopicFocus, type Focus } from '../crawler/focus/index.ts';
import { analysisTag, setStemming, type FlushInfo, type SearchIndex } from '../indexer/index.ts';
import type { ApplianceStatus, Target, UrlExplanation } from '../model/index.ts';
import { StoreOpenError, type Store } from '../store/index.ts';
import { acquireLock, type Lock } from '../store/sqlite/index.ts';
import { openStore } from './open-store.ts';
import * as admin from './admin.ts';
import { IndexFeed } from './index-feed.ts';
import { TemplateCleaner } from './template-clean.ts';
import { loadOrRebuild, newIndex } from './index-load.ts';
import type { IndexOrigin } from './index-origin.ts';
import { IndexFlusher } from './index-flush.ts';
import { ChangeFollower } from './follow.ts';
import { ShardFilter } from './shard-filter.ts';
import { count, explain, noRevisits, StatusReporter } from './status.ts';
import { AuthEndWarnings, warnScopesCoveringNoSeed } from './auth-warnings.ts';
import { buildCrawl, normalizerOf, type CrawlParts } from './wiring.ts';
import { silentLog, type Log } from '../lib/log.ts';
import type { Normalizer } from '../crawler/urls/index.ts';

export type { ApplianceStatus, CrawlStatus, FocusStatus, IndexStatus, RecrawlStatus, UrlExplanation } from '../model/index.ts';

export type OpenOptions = {
  /**
   * Name of the command that opens it, for the lock: the writer. Without it the data directory is
   * opened read-only (trawl search, serve, export): nothing is created or written there.
   */
  readonly lockFor?: string;
  readonly log?: Log;
  /**
   * No index is loaded, kept or flushed, and the change log is never pruned from here: a crawler
   * whose pages only go to the store (trawl worker; its data directory is locked only when it
   * archives, the WARC files are there), or a reader of the store alone (trawl export).
   */
  readonly noIndex?: boolean;
  /**
   * A search node on a shared store (trawl serve --store): the store is opened read-only, but the
   * data directory is this node's own — locked, its snapshot flushed there — and the index follows
   * the change log (follow.ts). Needs `lockFor`.
   */
  readonly readOnlyStore?: boolean;
};

/** A data directory that holds no crawl, opened for reading (exit code 2: the user's input). */
export class NoCrawlError extends Error {
  readonly code = 'ERR_NO_CRAWL';
}

/** The longest a sleeping continuous crawl waits before it looks at the schedule again. */
const MAX_SLEEP_MS = 3_600_000;

export class Appliance {
  readonly dataDir: string;
  crawler: Crawler | undefined;
  private crawl: CrawlParts | undefined;
  private focus: Focus | undefined;
  private readonly reporter = new StatusReporter();
  private readonly flusher: IndexFlusher;
  private flushTimer: NodeJS.Timeout | undefined;
  private anchorTimer: NodeJS.Timeout | undefined;
  private revisitTimer: NodeJS.Timeout | undefined;
  private revisitMode: RevisitMode = 'off';
  /** What revisits found since the crawl last ran out of work (for the log). */
  private round = noRevisits();
  /** Cleans pages stored before their host's template was learned (absent: no crawl, or not learning). */
  private cleaner: TemplateCleaner | undefined;
  private closed = false;
  /** True once close() has closed the store. */
  private closedStore = false;
  /** The change log followed, when other processes share the store (follow.ts). */
  private follower: ChangeFollower | undefined;
  /** The config's URL normalizer (seeds are kept as given; their records by identity; the URLs a rule pins or hides). */
  readonly normalize: Normalizer;

  private constructor(
    readonly config: Readonly<Config>,
    readonly store: Store,
    readonly index: SearchIndex,
    /** Where every change to the stored documents reaches the index (the crawler's IndexSink). */
    readonly feed: IndexFeed,
    private readonly lock: Lock | undefined,
    private readonly log: Log,
    /** The store the index follows, and the index as a reader of its change log (index-origin.ts). */
    origin: IndexOrigin,
    /** Pages go to the store only (OpenOptions.noIndex). */
    private readonly noIndex = false,
    /** The flush the index was loaded from, if any. */
    loaded?: Pick<FlushInfo, 'createdAt' | 'lastSeq' | 'bytes'>,
  ) {
    this.dataDir = resolve(config.dataDir);
    this.normalize = normalizerOf(config);
    this.flusher = new IndexFlusher(
      { store, index, feed, dir: this.indexDir, origin, readerTimeoutMs: config.cluster.readerTimeout, storeOpen: () => !this.closedStore },
      loaded,
    );
  }

  /** Opens the data directory (a writer creates it) and loads the index. */
  static async open(config: Readonly<Config>, options: OpenOptions = {}): Promise<Appliance> {
    const dir = resolve(config.dataDir);
    const log = options.log ?? silentLog;
    const writer = options.lockFor !== undefined;
    if (writer) mkdirSync(dir, { recursive: true });
    // (A worker without an index keeps nothing in its data directory but archives.)
    const lock = writer && !(options.noIndex && !config.archive.warc) ? acquireLock(dir, options.lockFor!) : undefined;
    let store: Store | undefined;
    try {
      // Documents and queries must be tokenized alike (parse workers get the same setting).
      setStemming(config.index.stemming);
      try {
        // (The crawl in config.store when it names a database, else SQLite in the data directory; the index is in the data directory either way.)
        store = await openStore(config.store ?? dir, {
          readOnly: !writer || options.readOnlyStore === true,
          poolSize: config.cluster.poolSize,
          connectTimeoutMs: config.cluster.connectTimeoutMs,
          outageRetryMs: config.cluster.outageRetry,
          log,
        });
      } catch (e) {
        if (e instanceof StoreOpenError && /^no crawl in /.test(e.message)) throw new NoCrawlError(e.message);
        throw e;
      }
      // (Token sequences are kept with the analysis that made them: stemming and its version.)
      if (options.noIndex) {
        const index = newIndex(store, analysisTag());
        return new Appliance(config, store, index, new IndexFeed(index, store, analysisTag(), log), lock, log, { store: store.location, reader: '' }, true);
      }
      // (An index that is flushed holds the change log: its pruning waits for this reader.)
      // (A search node of a sharded index holds one share of the documents: shard-filter.ts.)
      const loaded = await loadOrRebuild(join(dir, 'index'), store, analysisTag(), log, {
        holdLog: writer,
        shard: ShardFilter.forConfig(config.cluster.shard, config.store !== undefined),
      });
      loaded.index.foldDistance = config.index.nearDuplicates.maxDistance;
      const app = new Appliance(config, store, loaded.index, loaded.feed, lock, log, loaded.origin, false, loaded.flushed);
      // Other processes change a shared store: its change log is followed (a SQLite store is this process's alone).
      if (config.store) {
        app.follower = new ChangeFollower(store, loaded.feed, loaded.feed.through, log);
        await app.follower.start();
      }
      return app;
    } catch (e) {
      await store?.close();
      lock?.release();
      throw e;
    }
  }

  /** Where the crawl is, for messages: the data directory, or the database (never with its password) and the index's directory. */
  get where(): string {
    return this.config.store ? `${this.store.location} (index in ${this.dataDir})` : this.dataDir;
  }

  get indexDir(): string {
    return join(this.dataDir, 'index');
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
  async createCrawler(
    extraSeeds: readonly string[] = [],
    revisits: RevisitMode = 'due',
  ): Promise<{ crawler: Crawler; rejectedSeeds: { url: string; reason: string }[] }> {
    const c = this.config;
    if (!this.focus && focusing(c.focus)) this.focus = loadTopicFocus(c.focus);
    if (this.focus)
      this.log.info(`focused crawl: ${this.focus.classifier.name}; links of pages that are not relevant followed ${this.focus.tunnel} page(s) deep`);
    // (A worker keeps each page's token sequence with it, and indexes nothing.)
    const index: IndexSink = this.noIndex ? { sequenceOf: (a) => this.feed.sequenceOf(a), put: () => undefined, remove: () => undefined } : this.feed;
    const crawl = await buildCrawl(c, this.store, {
      extraSeeds,
      revisits,
      focus: this.focus,
      index,
      slices: this.noIndex ? undefined : this.feed.slices,
      log: this.log,
      dataDir: this.dataDir,
      shared: this.sharedFrontier(),
    });
    const { crawler } = crawl;
    this.crawl = crawl;
    this.crawler = crawler;
    this.revisitMode = revisits;
    this.reporter.watch(crawler, (e) => count(this.round, e));
    crawler.on('anchors', (targets) => this.feed.anchorsChanged(targets));
    if (crawl.extraction.templates) this.cleaner = new TemplateCleaner(crawl.extraction.templates, this.store, this.feed, this.log);
    // Pages crawled early were indexed before most links to them were seen.
    crawler.on('done', () => {
      const t0 = performance.now();
      void this.refreshAnchors()
        .then((n) => this.log.info(`anchor text: ${n} pages brought up to date with the links found after them (${Math.round(performance.now() - t0)} ms)`))
        .catch((e: unknown) => this.log.warn(`anchor text: ${(e as Error).message}`));
    });
    crawler.on('done', ({ reason }) => {
      if (revisits === 'continuous' && reason !== 'stopped') void this.sleepUntilDue();
    });
    // An auth scope that never applied while pages were sent to its login page: said at the end, not left to a 0-document crawl.
    const authEnd = new AuthEndWarnings(this.log);
    if (crawl.auth) crawler.on('done', () => authEnd.tell(crawl.auth!.view()));
    // Buffered anchor rows reach the store at least every second.
    this.anchorTimer = setInterval(() => {
      this.store.anchors
        .write()
        .catch((e: unknown) => this.log.warn(`anchor text could not be written (the ranking misses it; pages are not affected): ${(e as Error).message}`));
    }, 1000);
    this.anchorTimer.unref();
    const { rejected } = await crawler.addSeeds([...c.seeds, ...extraSeeds]);
    for (const r of rejected) this.log.warn(`seed ${r.url} not queued: ${r.reason}`);
    if (c.auth.length)
      warnScopesCoveringNoSeed(
        c.auth.map((a) => a.match),
        await this.store.seeds.all(),
        this.log,
      );
    return { crawler, rejectedSeeds: rejected };
  }

  /**
   * How this crawler shares the frontier with others when the store is a database (by host lease:
   * cluster.*); undefined for SQLite, which one process holds. A worker (no index) never ends.
   */
  private sharedFrontier(): SharedFrontier | undefined {
    const c = this.config;
    if (!c.store) return undefined;
    const machine = hostname();
    return {
      worker: `${machine}-${process.pid}-${randomBytes(2).toString('hex')}`,
      machine,
      pid: process.pid,
      leaseMs: c.cluster.leaseMs,
      maxHosts: c.cluster.hostsPerWorker || Math.max(2, Math.ceil((2 * c.concurrency) / c.perHost.maxConnections)),
      untilStopped: this.noIndex,
    };
  }

  /** A continuous crawl that ran out of work: says what the round found, and wakes it when the next page is due. */
  private async sleepUntilDue(): Promise<void> {
    if (this.closed) return;
    const at = await this.store.urls.nextRevisitAt();
    const r = this.round;
    if (r.revisited) this.log.info(`revisited ${r.revisited} pages: ${r.changed} changed, ${r.unchanged} unchanged, ${r.removed} removed`);
    this.round = noRevisits();
    clearTimeout(this.revisitTimer);
    if (at === undefined || this.closed) return;
    this.log.info(`next revisit due ${new Date(at).toISOString()}`);
    this.revisitTimer = setTimeout(() => this.crawler?.wake(), Math.min(MAX_SLEEP_MS, Math.max(100, at - Date.now())));
    this.revisitTimer.unref();
  }

  startFlushTimer(): void {
    if (this.noIndex) return;
    this.flushTimer = setInterval(() => {
      void this.refreshAnchors()
        .then(async () => {
          if (this.closed) return;
          if (!(await this.flush())) await this.flusher.holdLog();
        })
        .catch((e: unknown) => this.log.warn(`index flush failed (the crawl database still has every page; will retry): ${(e as Error).message}`));
    }, this.config.index.flushIntervalMs);
    this.flushTimer.unref();
  }

  /** Brings the anchor field of indexed pages up to date with the links found since (see IndexFeed). */
  async refreshAnchors(): Promise<number> {
    const updated = await this.feed.refreshAnchors();
    if (updated) this.flusher.indexChanged();
    return updated;
  }

  /** Writes the in-RAM index to disk (index-flush.ts); undefined when nothing changed since the last flush. */
  flush(): Promise<FlushInfo | undefined> {
    return this.flusher.flush();
  }

  /** Resolves once every change committed to the store so far is in the index (a shared store's follower; at once otherwise). */
  async caughtUp(): Promise<void> {
    await this.follower?.settled();
  }

  /** Resolves once the pages stored before their host's template was learned are cleaned. */
  async templatesCleaned(): Promise<void> {
    await this.cleaner?.settled();
  }

  status(): Promise<ApplianceStatus> {
    return this.reporter.status({
      config: this.config,
      store: this.store,
      index: this.index,
      crawl: this.crawl,
      focus: this.focus,
      continuous: this.revisitMode === 'continuous',
      lastFlush: this.flusher.last,
      normalize: this.normalize,
      open: !this.closedStore,
      cleaned: this.cleaner?.cleaned ?? 0,
    });
  }

  /** What Trawl knows of `url`: its record, or why it has none. */
  explain(url: string): Promise<UrlExplanation> {
    return explain(url, this.store, this.index, this.crawl?.policy);
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
    return admin.recrawl(this.store, this.running(), target);
  }

  /** Removes a URL's or a host's pages from the index and the store, and keeps the crawl from bringing them back. */
  async remove(target: { url: string } | { host: string }): Promise<{ removed: number }> {
    return admin.remove(this.store, this.feed, this.crawl?.policy, target);
  }

  /** The crawl that actions on it act on; none (trawl serve) is an error. */
  private running(): CrawlParts {
    if (!this.crawl) throw new Error('no crawl is running here (trawl serve): start one with trawl start');
    return this.crawl;
  }

  /** Graceful close: stop the crawl (in-flight work finished or put back), flush, close, unlock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.flushTimer);
    clearInterval(this.anchorTimer);
    clearTimeout(this.revisitTimer);
    try {
      await this.follower?.stop();
      await this.crawl?.crawler.stop();
      await this.crawl?.fetcher.close();
      await this.crawl?.parser.close();
      await this.crawl?.render?.service.close();
      await this.crawl?.archive?.close();
      await this.cleaner?.stop();
      await this.feed.anchorRefresh;
      if (this.lock && !this.noIndex) {
        // Links found late reach their pages' anchor field before the last flush (a refresh
        // started by the crawl's end is awaited, not cut short).
        await this.refreshAnchors();
        await this.flush();
      }
    } finally {
      // (The status after close reports the counts read last.)
      await this.reporter.keepCounts(this.store, this.normalize).catch(() => undefined);
      this.closedStore = true;
      await this.store.close();
      this.lock?.release();
    }
  }
}
