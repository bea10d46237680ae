/**
 * The crawler's public face: seeds in, events out. It puts the parts together — the frontier it is
 * given (crawler/frontier: what next, and the one commit path), the pipeline of one URL
 * (pipeline.ts: fetch, parse, judge, decide), the loop that runs them (loop.ts) — and knows nothing
 * of the index or the server: a stored page goes to the index sink it was given, and it emits
 * events (`document`, `removed`, `anchors`, `fetch`, `stats`, `done`) for whoever watches.
 */
import { EventEmitter } from 'node:events';
import type { Outcome } from '../model/index.ts';
import type { FetchResponse } from './fetch/fetcher.ts';
import { SEED_TUNNEL } from './focus/focus.ts';
import { LinkAdmitter } from './links.ts';
import { CrawlLoop } from './loop.ts';
import { UrlPipeline } from './pipeline.ts';
import type { AllowedRules } from './robots/robots.ts';
import { StatsRecorder } from './stats.ts';
import type { CrawlerDeps, CrawlerEvents } from './types.ts';
import { admit } from './urls/filters.ts';

export type { CrawlerDeps, CrawlerEvents, CrawlerLimits, IndexSink, RevisitMode } from './types.ts';

export class Crawler extends EventEmitter<CrawlerEvents> {
  readonly stats: StatsRecorder;
  private readonly now: () => number;
  private readonly links: LinkAdmitter;
  private readonly pipeline: UrlPipeline;
  private readonly loop: CrawlLoop;

  constructor(private readonly d: CrawlerDeps) {
    super();
    this.now = d.now ?? Date.now;
    this.stats = new StatsRecorder(this.now);
    this.links = new LinkAdmitter(d.policy);
    const { frontier } = d;
    this.pipeline = new UrlPipeline({ ...d, now: this.now, stats: this.stats, links: this.links, givenUp: (host) => frontier.givenUp(host) });
    this.loop = new CrawlLoop({
      frontier,
      pipeline: this.pipeline,
      index: d.index,
      emitter: this,
      stats: this.stats,
      concurrency: d.limits.concurrency,
      now: this.now,
      log: d.log,
      robotsLoaded: (origin, rules) => this.robotsLoaded(origin, rules),
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
      // (A seed seen before may have work too: a retry, a revisit.)
      this.d.frontier.addWork(new URL(a.url).host);
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
    return this.d.frontier.worker;
  }

  /** Requests in flight now. */
  inFlight(): number {
    return this.loop.fetching;
  }

  /** Requests completed per second over the last 10 seconds. */
  pagesPerSecond(): number {
    return this.stats.pagesPerSecond();
  }

  /**
   * A response that did not come from this crawl's fetch — a record of a web archive (trawl import)
   * — handled as if it had: its URL recorded, the page parsed, stored and indexed with its capture
   * date, its links' anchor text counted. Links are queued only as far as the policy lets them
   * (an import's policy stops at depth 0: nothing is queued to be fetched). `title`: the one the
   * archive tells (a WACZ's pages.jsonl), for a page without its own.
   */
  async ingest(url: string, res: FetchResponse, capturedAt: number, title?: string): Promise<{ outcome: Outcome['kind'] } | { refused: string }> {
    const a = admit(this.d.policy, url, 0);
    if (!a.ok) return { refused: a.detail ? `${a.reason} (${a.detail})` : a.reason };
    const q = await this.d.frontier.claim({ url: a.url, fetchUrl: a.fetchUrl, depth: 0, tunnel: 0 }, capturedAt);
    return { outcome: await this.loop.ingest(q, await this.pipeline.received(q, res, capturedAt, title)) };
  }

  /** A host's robots.txt was loaded: its sitemaps (else the conventional /sitemap.xml) feed the frontier. */
  private async robotsLoaded(origin: string, rules: AllowedRules): Promise<void> {
    const sitemaps = rules.sitemaps.length ? rules.sitemaps : [new URL('/sitemap.xml', origin).href];
    const admitted = await this.links.admit([{ links: sitemaps.map((url) => ({ url })), depth: 0, tunnel: 0 }]);
    await this.d.frontier.enqueue({ urls: admitted.urls, rejected: admitted.rejected });
    this.links.remember(admitted);
  }
}

export type { ErrorCode } from './errors.ts';
