/**
 * The frontier's records: every URL Trawl has seen, its state, and the queue of those to fetch.
 * A URL is queued once in its life (the seen-set); each host's queue is read breadth-first
 * (lowest depth, then oldest). Handing URLs out per host lets the crawler keep each host polite.
 */
import type { FailureReport, FetchMeta, FrontierCounts, NewUrl, Outcome, QueuedUrl, Revisit, Target, UrlRecord } from '../model/index.ts';

/** Where a host's next URL may come from, tried in the order given (the crawler's interleaving policy). */
export type TakeKind = 'queued' | 'retry' | 'revisit';

export type TakeOptions = {
  /** The kinds to try, in order; the first that has a URL gives it. */
  readonly kinds: readonly TakeKind[];
  /** Now: retries whose next attempt is due by then are taken. */
  readonly now: number;
  /** Pages whose revisit is due by this time (needed with `revisit`). */
  readonly revisitsDueBy?: number;
};

/** The HTTP statuses that make a failed URL reached from a link a broken link of the site: the page is not there. */
export const BROKEN_LINK_STATUSES = [404, 410] as const;

/** What a URL record's `finish` writes: how the fetch ended and when the page is due again. */
export type Finish = { readonly outcome: Outcome; readonly revisit: Revisit };

/** A URL taken: which kind it was, and, when the backend tells, whether it was the host's last of the kinds asked. */
export type Taken = QueuedUrl & {
  readonly kind: TakeKind;
  /**
   * True: no other URL of the host, of the kinds asked, was ready when this one was taken — the
   * next take would find none unless work is added (saves the crawler that round trip). False or
   * absent: there may be more.
   */
  readonly last?: boolean;
};

export interface UrlStore {
  /**
   * Takes the host's next URL of the first kind in `kinds` that has one, and marks it in flight
   * (`fetching`, one attempt more; a revisit's schedule is cleared). Undefined when none is ready.
   */
  take(host: string, options: TakeOptions): Promise<Taken | undefined>;
  /**
   * take() for up to `max` URLs at once, in the order take() would give them one by one, each
   * marked in flight; the last one's `last` tells as take()'s does. For a backend over the network
   * (one round trip for several fetches); absent: the crawler takes one at a time.
   */
  takeSome?(host: string, options: TakeOptions, max: number): Promise<Taken[]>;
  /**
   * A URL's record, made if it is new, marked in flight as `take` does: for a response that came
   * from elsewhere than the crawl's fetch (a web archive imported), about to be handled like one.
   */
  claim(url: NewUrl, now: number): Promise<QueuedUrl>;
  /** Records how a fetch ended (outside a page's commit: robots exclusions, crashes, a host given up). */
  finish(id: number, finish: Finish, now: number): Promise<void>;
  /** Returns an in-flight URL to the queue, not counting the attempt (a graceful stop, an unready host). */
  putBack(id: number): Promise<void>;
  /**
   * After a crash, URLs left in flight are queued again — but those of hosts under a lease, which
   * are the leaseholder's (a running worker's; or queued again when its lease runs out: leases.ts).
   * Returns how many.
   */
  recoverInFlight(): Promise<number>;
  /** Everything known of a URL (by its identity), if it was ever seen. */
  record(url: string): Promise<UrlRecord | undefined>;
  /** The ids of the URLs (identities) Trawl has seen, by URL; unknown ones are left out. */
  idsOf(urls: readonly string[]): Promise<Map<string, number>>;
  /** URLs by state. */
  counts(): Promise<FrontierCounts>;
  /** Pages fetched with success (documents, sitemaps, not-modified): what limits.maxPages counts. */
  pagesFetched(): Promise<number>;
  /** Focused crawl: URLs whose last verdict was relevant, and not relevant. */
  topicVerdicts(): Promise<{ relevant: number; notRelevant: number }>;
  /** Pages whose links were cut at limits.maxLinksPerPage at their last fetch, and how many links were cut in all. */
  linksCut(): Promise<{ pages: number; links: number }>;
  /**
   * The URLs that failed (`failed` and `dead`), told apart: broken links — a URL at depth > 0 (found
   * by a link, not a seed) that answered one of BROKEN_LINK_STATUSES, with the page it was found on
   * and its links counted in the anchor store — and every other failure. Each counted, and the first
   * `limit` of each listed, in the order they were found (their ids).
   */
  failures(limit: number): Promise<FailureReport>;
  /** When the earliest failed URL may be tried again; undefined when none waits. */
  nextRetryAt(): Promise<number | undefined>;
  /** When the next revisit falls due (it may be past); undefined when none is scheduled. */
  nextRevisitAt(): Promise<number | undefined>;
  /** Pages whose revisit is due by `now`. */
  dueRevisits(now: number): Promise<number>;
  /**
   * Makes every sitemap (a URL `fetched`, not a document) due by `by`: a pass over due pages reads
   * them first, so that their <lastmod> can make the pages that changed due in the same pass.
   */
  sitemapsDue(by: number): Promise<void>;
  /**
   * Queues again the URLs of `target` that are not queued or in flight (a recrawl); a URL or host
   * removed by an admin is queued again only when named by its URL. Returns how many, and the
   * hosts that now have queued URLs.
   */
  requeue(target: Target): Promise<{ count: number; hosts: string[] }>;
  /**
   * Marks the URLs of `target` excluded, "removed by an admin", so that the crawl does not bring
   * them back (a URL in flight is left alone). Returns the ids of the URLs that were known.
   */
  exclude(target: { readonly url: string } | { readonly host: string }): Promise<number[]>;
}

/** What a fetch learned, as `finish` keeps it (re-exported for adapters). */
export type { FetchMeta };
