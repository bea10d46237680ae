/**
 * The crawl loop, whole on one page. A pass takes URLs from the frontier while there is room —
 * `concurrency` requests in flight, and as many pages again waiting for the parser or the store —
 * and hands each to the pipeline; the URL's end is written through the frontier (the one commit
 * path, whatever it came to), then the index and the listeners are told. When the frontier has
 * nothing ready the loop sleeps until the time it names, or until a URL's end or new work asks for
 * a pass; when it has nothing left, the crawl is done. One pass runs at a time: one asked for
 * while another runs follows it, since the frontier may have missed what the asker changed.
 *
 *   a pass:  frontier.next(now) → a URL | nothing before T (sleep) | nothing left (done)
 *   a URL:   pipeline.fetch → frontier.fetched (the host's delay starts) → pipeline.judge
 *            → frontier.finish (the commit) → index, events → pipeline.committed
 *
 * What the frontier and the pipeline are is theirs (crawler/frontier, pipeline.ts): the loop sees
 * their interfaces only, so a test drives it with an in-memory frontier and a scripted pipeline.
 */
import type { EventEmitter } from 'node:events';
import type { Log } from '../lib/log.ts';
import type { Outcome, QueuedUrl } from '../model/index.ts';
import type { FetchCommitResult } from '../store/index.ts';
import { type Frontier, type FrontierItem, type FrontierRun, PUT_BACK } from './frontier/frontier.ts';
import type { Pipeline, Response, UrlEnd } from './pipeline.ts';
import type { AllowedRules } from './robots/robots.ts';
import type { StatsRecorder } from './stats.ts';
import type { CrawlerEvents, IndexSink } from './types.ts';

export type LoopDeps = {
  readonly frontier: Frontier;
  readonly pipeline: Pipeline;
  /** Where stored pages are indexed; none: they are only stored. */
  readonly index?: IndexSink | undefined;
  /** The crawler, whose events the loop emits. */
  readonly emitter: EventEmitter<CrawlerEvents>;
  readonly stats: StatsRecorder;
  /** Requests in flight at most (limits.concurrency). */
  readonly concurrency: number;
  readonly now: () => number;
  readonly log?: Log | undefined;
  /** A host's robots.txt was loaded: its sitemaps are queued. */
  readonly robotsLoaded: (origin: string, rules: AllowedRules) => Promise<void>;
};

/** How long stop() lets in-flight requests finish before it aborts them and puts them back. */
export const STOP_GRACE_MS = 5000;
/** The shortest sleep the frontier's wake time asks for (a time already past wakes the loop this soon). */
const MIN_SLEEP_MS = 5;
/** How often the crawl's figures are told (the `stats` event) while it runs. */
const STATS_EVERY_MS = 1000;

export class CrawlLoop {
  /** Requests in flight: `concurrency` caps these, not parsing. */
  fetching = 0;
  /** URLs being handled: fetched, parsed or written. */
  private active = 0;
  /** Archive captures being handled (ingest): beside the loop's own URLs, they share group commits. */
  private ingesting = 0;
  private stopping: Promise<void> | undefined;
  private finished = false;
  /** Paused by an admin: no new requests; those in flight finish. */
  private pausedFlag = false;
  private passing = false;
  private passAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private statsTimer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private donePromise: Promise<CrawlerEvents['done'][0]> | undefined;
  /** A stop waiting for the loop to be quiet: nothing in the pipeline, no pass, the frontier idle. */
  private quiet: (() => void) | undefined;
  private readonly run_: FrontierRun;

  constructor(private readonly d: LoopDeps) {
    this.run_ = {
      signal: this.abort.signal,
      wake: () => this.wake(),
      robotsLoaded: (origin, rules) => d.robotsLoaded(origin, rules),
      figures: () => ({ pages: d.stats.snapshot().requests, pagesPerSecond: d.stats.pagesPerSecond() }),
    };
  }

  get running(): boolean {
    return !this.finished && this.donePromise !== undefined;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  run(): Promise<CrawlerEvents['done'][0]> {
    this.donePromise ??= new Promise((resolve, reject) => {
      this.d.emitter.once('done', resolve);
      this.start().catch(reject);
    });
    return this.donePromise;
  }

  private async start(): Promise<void> {
    await this.d.frontier.start(this.run_);
    this.startStats();
    this.pump();
  }

  /** New work, or something ready: a pass now (a crawl that had run out of work runs again). */
  wake(): void {
    if (!this.donePromise) return;
    if (this.stopping) {
      this.checkQuiet();
      return;
    }
    if (!this.finished) {
      this.pump();
      return;
    }
    this.finished = false;
    this.startStats();
    void this.d.frontier.start(this.run_).then(
      () => this.pump(),
      (e: unknown) => this.d.log?.error(`crawl loop: ${(e as Error).message}`),
    );
  }

  pause(): void {
    this.pausedFlag = true;
    this.clearTimer();
  }

  resume(): void {
    if (!this.pausedFlag) return;
    this.pausedFlag = false;
    this.wake();
  }

  /** No new requests; those in flight finish, or are aborted and put back after STOP_GRACE_MS. */
  stop(): Promise<void> {
    if (this.finished) return Promise.resolve();
    this.stopping ??= (async () => {
      this.clearTimer();
      const grace = setTimeout(() => this.abort.abort(), STOP_GRACE_MS);
      await new Promise<void>((resolve) => {
        this.quiet = resolve;
        this.checkQuiet();
      });
      clearTimeout(grace);
      await this.finish('stopped');
    })();
    return this.stopping;
  }

  /** Asks for a pass of the loop (now, or after the one running). */
  pump(): void {
    if (this.passing) {
      this.passAgain = true;
      return;
    }
    this.passing = true;
    this.passAgain = false;
    void this.pass()
      .catch((e: unknown) => this.d.log?.error(`crawl loop: ${(e as Error).stack ?? String(e)}`))
      .finally(() => {
        this.passing = false;
        // (Asked for while this pass ran: the pass may have missed what the asker changed.)
        if (this.passAgain) this.pump();
        this.checkQuiet();
      });
  }

  /** Takes URLs while there is room; then sleeps until the frontier's time, or ends the crawl. */
  private async pass(): Promise<void> {
    if (this.stopping || this.finished || this.pausedFlag) return;
    this.clearTimer();
    const now = this.d.now();
    while (this.hasRoom()) {
      const next = await this.d.frontier.next(now);
      if (next.kind === 'item') this.handle(next.item);
      else if (next.kind === 'wait') return this.sleepUntil(next.until);
      // (Work arrived while the frontier looked: the pass asked for after this one decides.)
      else return this.passAgain ? undefined : this.finish(next.reason);
    }
  }

  /** Pages waiting to be parsed and stored hold no connection; bounding them too (as many again) keeps bodies in memory bounded. */
  private hasRoom(): boolean {
    const { concurrency } = this.d;
    return this.fetching < concurrency && this.active < concurrency * 2 && !this.stopping && !this.pausedFlag;
  }

  /** One URL from the frontier, in the pipeline until it settles. */
  private handle(item: FrontierItem): void {
    this.active++;
    void this.process(item)
      .catch((e: unknown) => this.d.log?.error(`${item.fetchUrl}: ${(e as Error).stack ?? String(e)}`))
      .finally(() => {
        this.active--;
        this.d.frontier.settled(item);
        this.pump();
      });
  }

  private async process(item: FrontierItem): Promise<void> {
    if (item.disallowed) return void (await this.commit(item, this.d.pipeline.disallowed(item)));
    this.fetching++;
    const fetched = await this.d.pipeline.fetch(item, this.abort.signal).finally(() => this.fetching--);
    // The request is over: the host's politeness clock starts now, not after parsing.
    await this.d.frontier.fetched(item, fetched.request);
    if (fetched.aborted) return void (await this.d.frontier.finish(item, PUT_BACK));
    // The connection is free: the next request starts while this page is parsed.
    this.pump();
    await this.complete(item, fetched);
  }

  /** An archive's capture, handled as if just fetched: the same decision and commit (it holds no place in the loop's room). */
  async ingest(item: QueuedUrl, response: Response): Promise<Outcome['kind']> {
    this.ingesting++;
    try {
      return await this.complete(item, response);
    } finally {
      this.ingesting--;
    }
  }

  /** What a response comes to, written and told; the fetch event last. */
  private async complete(item: QueuedUrl, response: Response): Promise<Outcome['kind']> {
    let end: UrlEnd;
    try {
      end = await this.commit(item, await this.d.pipeline.judge(item, response, this.abort.signal));
    } catch (e) {
      // A bug or a page that breaks the parser must cost one URL, never the crawl.
      end = this.d.pipeline.failed(item, response, e);
      await this.d.frontier.finish(item, end);
    }
    await this.d.pipeline.committed(item, end);
    // Alone in the pipeline: nothing to share a commit with, so commit now (a slow, polite crawl
    // then loses nothing but what is in flight); otherwise the store's group commits on its own.
    if (this.active + this.ingesting <= 1) await this.d.frontier.sync();
    const { kind } = end.commit.outcome;
    this.d.stats.outcome(kind);
    if (end.fetch) this.d.emitter.emit('fetch', end.fetch);
    return kind;
  }

  /**
   * Writes a URL's end through the frontier — decided again as a duplicate when the store had its
   * content already (another worker stored it since it was tested, or the store tests it only at
   * its commit) — then tells the index and the listeners.
   */
  private async commit(item: QueuedUrl, first: UrlEnd): Promise<UrlEnd> {
    let end = first;
    let result = await this.write(item, end);
    if (result.contentSeen) {
      end = await this.d.pipeline.asDuplicate(end, result.contentSeen);
      result = await this.write(item, end);
    }
    for (const { links } of end.anchors) this.d.emitter.emit('anchors', [...new Set(links.map((a) => a.target))]);
    if (result.removed !== undefined) {
      await this.d.index?.remove(item.id, result.removed);
      this.d.emitter.emit('removed', item.id);
    }
    if (end.page && result.stored !== undefined) {
      const i0 = performance.now();
      await this.d.index?.put(end.page.doc, end.page.analysis, result.stored);
      this.d.stats.time('index', performance.now() - i0);
      this.d.emitter.emit('document', end.page.doc, end.page.analysis);
    }
    return end;
  }

  /** The frontier's commit, its time counted as the store stage's for a URL that was fetched. */
  private async write(item: QueuedUrl, end: UrlEnd): Promise<FetchCommitResult> {
    const s0 = performance.now();
    const result = await this.d.frontier.finish(item, end);
    if (end.fetch) this.d.stats.time('store', performance.now() - s0);
    return result;
  }

  /** Wakes the loop at the frontier's time (absent: a URL's end or new work will). */
  private sleepUntil(until: number | undefined): void {
    if (until === undefined || this.finished || this.stopping || this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(MIN_SLEEP_MS, until - this.d.now()),
    );
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private startStats(): void {
    this.statsTimer = setInterval(() => this.d.emitter.emit('stats', this.d.stats.snapshot()), STATS_EVERY_MS);
    this.statsTimer.unref();
  }

  /** A stop waits for this: nothing in the pipeline, no pass running, no robots.txt loading. */
  private checkQuiet(): void {
    if (!this.quiet || this.active > 0 || this.passing || this.d.frontier.busy) return;
    const quiet = this.quiet;
    this.quiet = undefined;
    quiet();
  }

  private async finish(reason: 'exhausted' | 'limit' | 'stopped'): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.clearTimer();
    clearInterval(this.statsTimer);
    // (A shared frontier releases what it still holds; everything written is made durable.)
    await this.d.frontier.stop();
    this.d.emitter.emit('stats', this.d.stats.snapshot());
    this.d.emitter.emit('done', { reason });
  }
}
