/**
 * The frontier as the crawl loop sees it: one interface, two adapters — `local/` (one crawler on
 * its own store, SQLite or PostgreSQL) and `leased/` (many crawlers sharing a PostgreSQL store, each
 * host fetched by one of them at a time under a lease). The contract suite (`contract/`) holds both
 * to the same behaviour: the order URLs come in, politeness, when the crawl is done.
 *
 * The loop asks `next(now)` for a URL to fetch (or when to ask again, or that nothing is left),
 * tells `fetched()` when the request ended (the host's politeness clock starts then, not after
 * parsing), and writes each URL's end through `finish()` — the one commit path, whatever the URL
 * came to: a page, an exclusion (robots.txt too), a failure, an internal error, a fetch aborted by
 * a stop and put back. `settled()` says the URL has left the pipeline.
 */
import type { AnchorLink, ErrorCode, NewUrl, QueuedUrl } from '../../model/index.ts';
import type { EnqueueBatch, EnqueueResult, FetchCommit, FetchCommitResult, Taken } from '../../store/index.ts';
import type { AllowedRules } from '../robots/robots.ts';

/**
 * How a crawl treats pages whose revisit is due, interleaved with new URLs: `off` takes none (a
 * pass over named pages); `due` takes those due when it runs (or is woken), so a pass ends;
 * `continuous` takes each as it falls due while it runs. Both end when nothing is left now: the
 * owner of a continuous crawl wakes it when the next page is due.
 */
export type RevisitMode = 'off' | 'due' | 'continuous';

/** A URL handed out by next(), in flight until the loop finishes it. */
export type FrontierItem = Taken & {
  /** robots.txt disallows it: it is recorded as excluded, never fetched (it holds no connection). */
  readonly disallowed?: boolean;
};

/** What next() has: a URL to fetch; nothing ready before `until` (absent: before a URL ends or work arrives); nothing left. */
export type Next =
  | { readonly kind: 'item'; readonly item: FrontierItem }
  | { readonly kind: 'wait'; readonly until?: number | undefined }
  | { readonly kind: 'done'; readonly reason: 'exhausted' | 'limit' };

/** How a request ended, as the host's politeness counts it. */
export type RequestEnd = {
  readonly at: number;
  /** False when the failure is the host's fault (ERRORS[error].hostFault): it backs the host off. */
  readonly ok: boolean;
  /** The server's Retry-After (429, 503): the host's next request waits at least this. */
  readonly retryAfterMs?: number | undefined;
  readonly error?: ErrorCode | undefined;
};

/** The anchor text of the links of one page, recorded once its commit is written. */
export type AnchorBatch = { readonly source: string; readonly links: readonly AnchorLink[] };

/** A URL's end as the frontier writes it: the store's commit, its time, and what is learned with it. */
export type UrlCommit = {
  readonly commit: FetchCommit;
  /** The time the commit is made at (a capture's date, for an archive imported). */
  readonly at: number;
  readonly anchors: readonly AnchorBatch[];
  /** A sitemap was read: its <lastmod>s may have made pages due, to be looked for at once. */
  readonly sitemap?: boolean;
};

/** The end of a URL whose fetch was aborted (a stop): back to the queue, its attempt not counted. */
export const PUT_BACK = Object.freeze({ putBack: true as const });

/** What the frontier needs of a run of the crawl: it calls back into the loop through this alone. */
export type FrontierRun = {
  /** Aborted when a stop's grace period is over: robots.txt loads end with it. */
  readonly signal: AbortSignal;
  /** Something may be ready now (a robots.txt loaded; work for a host another worker may release). */
  wake(): void;
  /** A host's robots.txt was loaded: its sitemaps, for the crawl to queue. Awaited before the host's URLs go on. */
  robotsLoaded(origin: string, rules: AllowedRules): Promise<void>;
  /** The crawl's figures so far, for a shared frontier's heartbeat (trawl workers). */
  figures(): { readonly pages: number; readonly pagesPerSecond: number };
};

export interface Frontier {
  /** This crawler's name among the workers sharing the frontier (undefined: the store is its own). */
  readonly worker: string | undefined;
  /** Work of its own in flight — robots.txt loads: a stop waits for it. */
  readonly busy: boolean;
  /** A run starts, or starts again after it ran out of work (a wake): URLs left in flight by a crash are queued again the first time. */
  start(run: FrontierRun): Promise<void>;
  /**
   * The next URL to fetch, marked in flight and counted against its host's connections. Each new
   * `now` (the loop reads the clock once a pass) first brings in the hosts whose work fell due.
   */
  next(now: number): Promise<Next>;
  /** The request for `item` ended: the host's delay runs from now; a host that keeps failing is given up. */
  fetched(item: FrontierItem, end: RequestEnd): Promise<void>;
  /**
   * A URL's end, written in one commit, and what follows it: hosts that got work join the ring, the
   * anchor text is recorded, a failed URL's host comes back for its retry. Resolves to the store's
   * result — `contentSeen`: nothing was written, decide again. PUT_BACK: queued again, untouched.
   */
  finish(item: QueuedUrl, end: UrlCommit): Promise<FetchCommitResult>;
  finish(item: QueuedUrl, end: typeof PUT_BACK): Promise<undefined>;
  /** Nothing of `item` is in the pipeline any more: its host may be released; limits.maxPages counts it. */
  settled(item: FrontierItem): void;
  /** A URL that did not come from next() — an archive's capture — recorded and marked in flight, to be handled like one. */
  claim(url: NewUrl, now: number): Promise<QueuedUrl>;
  /** Queues URLs (and counts the rejections of the links that were not admitted); their hosts join the ring. */
  enqueue(batch: EnqueueBatch): Promise<EnqueueResult>;
  /** The host may have work the frontier did not queue itself (a seed given again): it is looked at. */
  addWork(host: string): void;
  /** The host was given up in this run, and why: a URL of it that would be retried dies with it. */
  givenUp(host: string): { readonly error: ErrorCode; readonly reason: string } | undefined;
  /** How many URLs of `host` were ever queued (limits.maxPagesPerHost, which the URL filters ask for every link). */
  urlsOfHost(host: string): number;
  /** Makes every commit so far durable (a URL alone in the pipeline has none to share a group commit with). */
  sync(): Promise<void>;
  /** The run ends: a shared frontier releases its hosts; everything written is made durable. */
  stop(): Promise<void>;
}
