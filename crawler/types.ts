/**
 * The crawler's interfaces: what it is given (its stages, each behind an interface, its limits,
 * where pages go) and what it tells.
 */
import type { Log } from '../lib/log.ts';
import type { Slices } from '../lib/slices.ts';
import type { DocumentFormat, FetchEvent, StoredDocument } from '../model/index.ts';
import type { Store, TokenSequence } from '../store/index.ts';
import type { RetryPolicy } from './errors.ts';
import type { FetchResponse, PageFetcher } from './fetch/fetcher.ts';
import type { Focus } from './focus/focus.ts';
import type { Frontier } from './frontier/frontier.ts';
import type { RevisitPolicy } from './frontier/revisit.ts';
import type { PageParser } from './parse/pool.ts';
import type { RenderDeps } from './render/stage.ts';
import type { CrawlStats } from './stats.ts';
import type { Extraction } from './template/extraction.ts';
import type { UrlPolicy } from './urls/filters.ts';

export type { RevisitMode } from './frontier/frontier.ts';

/** The crawler's settings (config/schema.ts, where their defaults are; appliance/wiring.ts limitsOf). */
export type CrawlerLimits = {
  /** Requests in flight at once; as many pages again may wait for the parser. */
  readonly concurrency: number;
  readonly maxRedirects: number;
  /** Links kept per page (limits.maxLinksPerPage); beyond, they are counted, not followed. */
  readonly maxLinksPerPage: number;
  /** Follow rel="nofollow" links too. */
  readonly followNofollow: boolean;
  /** Attempts per URL and the back-off between them. */
  readonly retry: RetryPolicy;
  /** Bounds of a page's revisit interval (crawler/frontier/revisit.ts). */
  readonly revisit: RevisitPolicy;
  /** Documents besides HTML (crawler/documents): the formats read, pages extracted, the size cap. */
  readonly documents: { readonly types: readonly DocumentFormat[]; readonly maxPages: number; readonly maxBytes: number };
};

/** Where stored pages go: the index, kept by the orchestrator. The crawler awaits each call. */
export interface IndexSink {
  /** The token sequence to keep with a page (from what the parse worker added for the index), if any. */
  sequenceOf(analysis: unknown): TokenSequence | undefined;
  /** A page was stored (change `seq`): index it. */
  put(doc: StoredDocument, analysis: unknown, seq: number): Promise<void> | void;
  /** A stored page left the store (change `seq`): take it out of the index. */
  remove(id: number, seq: number): Promise<void> | void;
}

/** Archiving while crawling (crawler/archive): each response fetched is handed to it. */
export interface FetchArchive {
  fetched(urlId: number, url: string, res: FetchResponse, unchanged: boolean): Promise<void>;
}

export type CrawlerEvents = {
  /** A page was stored and indexed. `analysis` is what the extractor added for the index, if anything. */
  document: [StoredDocument, unknown];
  /** A stored page left the store and the index (noindex, duplicate, canonical elsewhere, gone). */
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
  /** What the pipeline reads (a page held? the same content stored?) and where seeds are kept. */
  readonly store: Store;
  /** What next, and the one commit path (crawler/frontier: local/ or leased/). */
  readonly frontier: Frontier;
  readonly fetcher: PageFetcher;
  /** Decodes and parses bodies (inline, or in worker threads). */
  readonly parser: PageParser;
  /** Normalizer and filters: how raw links become queued URLs. */
  readonly policy: UrlPolicy;
  readonly limits: CrawlerLimits;
  /** A focused crawl: pages are judged against a topic; only relevant ones are stored (crawler/focus). */
  readonly focus?: Focus | undefined;
  /** What the parser leaves out of a page's text beyond its markup: per-host selectors and the templates learned (crawler/template). */
  readonly extraction?: Extraction | undefined;
  readonly archive?: FetchArchive | undefined;
  /** Credentials per scope (crawler/auth): the crawler asks it which URLs are login pages. */
  readonly auth?: { isLoginPage(url: string): boolean } | undefined;
  /** Rendering pages that need JavaScript in a browser (crawler/render); absent: never. */
  readonly render?: RenderDeps | undefined;
  /** Where stored pages are indexed; none: they are only stored. */
  readonly index?: IndexSink | undefined;
  /**
   * The main thread's slices (lib/slices.ts), shared with the index and whatever else works on it:
   * a page's main-thread work — outcome, commit, index add — waits for its turn, so that a search
   * never waits behind several pages at once. None: each page's work runs as soon as it is parsed.
   */
  readonly slices?: Slices | undefined;
  readonly userAgent: string;
  readonly now?: () => number;
  /** Where a bounded failure is reported (never thrown), and what the crawl tells as it goes. */
  readonly log?: Log;
};
