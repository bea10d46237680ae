/** The crawler's interfaces: what it is given (its stages, limits, where pages go) and what it tells. */
import type { Log } from '../lib/log.ts';
import type { Slices } from '../lib/slices.ts';
import type { DocumentFormat, FetchEvent, StoredDocument } from '../model/index.ts';
import type { Store, TokenSequence } from '../store/index.ts';
import type { RetryPolicy } from './errors.ts';
import type { Fetcher, FetchResponse } from './fetch/fetcher.ts';
import type { Focus } from './focus/focus.ts';
import type { Frontier } from './frontier/frontier.ts';
import type { SharedFrontier } from './frontier/leases.ts';
import type { HostScheduler } from './frontier/hosts.ts';
import type { RevisitPolicy } from './frontier/revisit.ts';
import type { PageParser } from './parse/index.ts';
import type { RenderDeps } from './render/stage.ts';
import type { RobotsCache } from './robots/robots.ts';
import type { Extraction } from './template/extraction.ts';
import type { CrawlStats } from './stats.ts';
import type { UrlPolicy } from './urls/filters.ts';

export type CrawlerLimits = {
  readonly concurrency: number;
  readonly maxPages: number;
  readonly maxRedirects: number;
  /** Links kept per page (limits.maxLinksPerPage); beyond, they are counted, not followed. */
  readonly maxLinksPerPage: number;
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
  /** Documents besides HTML (crawler/documents): the formats read, pages extracted, the size cap. */
  readonly documents: { readonly types: readonly DocumentFormat[]; readonly maxPages: number; readonly maxBytes: number };
};

/**
 * How a crawl treats pages whose revisit is due, interleaved with new URLs: `off` takes none (a
 * pass over named pages); `due` takes those due when it runs (or is woken), so a pass ends;
 * `continuous` takes each as it falls due while it runs. Both end when nothing is left now: the
 * owner of a continuous crawl wakes it when the next page is due.
 */
export type RevisitMode = 'off' | 'due' | 'continuous';

/** Where stored pages go: the index, kept by the orchestrator. The crawler awaits each call. */
export interface IndexSink {
  /** The token sequence to keep with a page (from what the parse worker added for the index), if any. */
  sequenceOf(analysis: unknown): TokenSequence | undefined;
  /** A page was stored (change `seq`): index it. */
  put(doc: StoredDocument, analysis: unknown, seq: number): Promise<void> | void;
  /** A stored page left the store (change `seq`): take it out of the index. */
  remove(id: number, seq: number): Promise<void> | void;
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
  readonly store: Store;
  /** The crawler's side of the frontier, over the store (its per-host counts feed the URL filters). */
  readonly frontier: Frontier;
  readonly scheduler: HostScheduler;
  readonly robots: RobotsCache;
  readonly fetcher: Fetcher;
  /** Decodes and parses bodies (inline, or in worker threads). */
  readonly parser: PageParser;
  /** Normalizer and filters: how raw links become queued URLs. */
  readonly policy: UrlPolicy;
  readonly limits: CrawlerLimits;
  /** A focused crawl: pages are judged against a topic; only relevant ones are stored (crawler/focus). */
  readonly focus?: Focus | undefined;
  /** What the parser leaves out of a page's text beyond its markup: per-host selectors and the templates learned (crawler/template). */
  readonly extraction?: Extraction | undefined;
  /** Archiving while crawling (crawler/archive): each response fetched is handed to it. */
  readonly archive?: { fetched(urlId: number, url: string, res: FetchResponse, unchanged: boolean): Promise<void> } | undefined;
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
  /** Many processes share the frontier (a PostgreSQL store): hosts are fetched by lease (frontier/leases.ts). */
  readonly shared?: SharedFrontier | undefined;
  readonly now?: () => number;
  /** Where a bounded failure is reported (never thrown), and what the crawl tells as it goes. */
  readonly log?: Log;
};
