/** A URL's life in the crawl: its state, what a fetch learned of it, and how a fetch ended. */
import type { ErrorCode } from './errors.ts';

/**
 * A URL record's state (after nlpcrawl's state machine):
 *
 *   queued → fetching → indexed       a page, stored and in the index
 *                     → fetched       fetched, not a document (a sitemap)
 *                     → not-modified  a conditional GET answered 304
 *                     → redirected    `reason` holds the target
 *                     → excluded      robots, noindex, duplicate, canonical, type… (`reason`)
 *                     → failed        temporarily: `attempts`, `next_attempt_at`, `error`
 *                     → dead          permanently (or out of attempts): `error`, `reason`
 *   failed → fetching (when next_attempt_at is due)
 *   indexed | fetched | not-modified → fetching (when revisit_at is due; a held page that is
 *                                       dead for now is revisited too)
 *
 * `fetching` rows left by a crash are queued again on the next start.
 */
export type UrlState = 'queued' | 'fetching' | 'indexed' | 'fetched' | 'not-modified' | 'redirected' | 'excluded' | 'failed' | 'dead';

export const URL_STATES: readonly UrlState[] = ['queued', 'fetching', 'indexed', 'fetched', 'not-modified', 'redirected', 'excluded', 'failed', 'dead'];

/** URLs by state. */
export type FrontierCounts = Record<UrlState, number>;

/** What a fetch learned about a URL, kept on its record. */
export type FetchMeta = {
  readonly contentType?: string;
  readonly charset?: string;
  readonly lang?: string;
  readonly size?: number;
  readonly hash?: string;
  readonly etag?: string;
  readonly lastModified?: string;
  /** Hash of the links followed from the page. */
  readonly linksHash?: string;
  /** A focused crawl's verdict on the page: its score against the topic, and whether it is relevant. */
  readonly topic?: { readonly score: number; readonly relevant: boolean };
  /** Links the page had beyond limits.maxLinksPerPage: not followed (0 when none were cut). */
  readonly linksCut?: number;
  /** Why the page was rendered in a browser (crawler/render), when it was. */
  readonly rendered?: string;
};

/** Everything Trawl keeps of a URL. */
export type UrlRecord = {
  readonly id: number;
  readonly url: string;
  readonly fetchUrl: string;
  readonly host: string;
  readonly depth: number;
  readonly state: UrlState;
  readonly reason: string | null;
  readonly error: string | null;
  readonly httpStatus: number | null;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly discoveredAt: number;
  readonly fetchedAt: number | null;
  readonly changedAt: number | null;
  readonly contentType: string | null;
  readonly charset: string | null;
  readonly lang: string | null;
  readonly size: number | null;
  readonly hash: string | null;
  readonly etag: string | null;
  readonly lastModified: string | null;
  /** `<lastmod>` from a sitemap, as written there. */
  readonly lastmod: string | null;
  /** When the page is due to be fetched again (null: not scheduled), and its current interval. */
  readonly revisitAt: number | null;
  readonly revisitMs: number | null;
  /** Focused crawl: pages not relevant in a row that led here, and the verdict (null: not judged). */
  readonly tunnel: number;
  readonly topicScore: number | null;
  readonly relevant: boolean | null;
  /** Links the page had beyond limits.maxLinksPerPage at its last fetch, not followed (null: none cut). */
  readonly linksCut: number | null;
  /** Why the page was rendered in a browser at its last fetch (null: it was not). */
  readonly rendered: string | null;
};

/** A URL handed out by the frontier to be fetched (its record is `fetching` meanwhile). */
export type QueuedUrl = {
  readonly id: number;
  /** The URL's identity (normalized). */
  readonly url: string;
  /** What to request: the identity, or the milder form it was found as (see crawler/urls/normalize.ts). */
  readonly fetchUrl: string;
  readonly host: string;
  readonly depth: number;
  readonly hops: number;
  /** Including this one. */
  readonly attempts: number;
  /** From the last successful fetch, if any: the validators and the content hash. */
  readonly etag?: string | null;
  readonly lastModified?: string | null;
  readonly hash?: string | null;
  /** Hash of the links followed from it at its last fetch (the same again are not queued again). */
  readonly linksHash?: string | null;
  /** Its revisit interval so far (ms), if it was ever fetched; and a sitemap's <lastmod> for it. */
  readonly revisitMs?: number | null;
  readonly lastmod?: string | null;
  /** Taken because its revisit was due (not new, not a retry, not queued again by hand). */
  readonly revisit?: boolean;
  /** Focused crawl: pages not relevant in a row that led to it (crawler/focus/focus.ts). */
  readonly tunnel?: number;
  /** Focused crawl: its score at its last fetch, if it was judged. */
  readonly topicScore?: number | null;
};

/** A URL to queue: its identity, what to request, and how it was found. */
export type NewUrl = {
  readonly url: string;
  readonly depth: number;
  readonly hops?: number;
  readonly fetchUrl?: string;
  /** A sitemap's `<lastmod>` for it. */
  readonly lastmod?: string;
  readonly tunnel?: number;
};

/** How a fetch of a queued URL ended; decides the record's next state. */
export type Outcome =
  | { readonly kind: 'indexed' | 'fetched' | 'not-modified'; readonly status: number; readonly meta?: FetchMeta; readonly note?: string }
  | { readonly kind: 'redirected'; readonly status: number; readonly to: string }
  | { readonly kind: 'excluded'; readonly status?: number; readonly reason: string; readonly meta?: FetchMeta }
  | { readonly kind: 'failed'; readonly status?: number; readonly error: ErrorCode; readonly reason: string; readonly retryAt: number }
  | { readonly kind: 'dead'; readonly status?: number; readonly error: ErrorCode; readonly reason: string };

/** When a URL is due again, and its interval (crawler/frontier/revisit.ts); null: not to be revisited. */
export type Revisit = { readonly at: number; readonly intervalMs: number } | null;

/** A URL, a host, or everything: what an admin action applies to. */
export type Target = { readonly url: string } | { readonly host: string } | { readonly all: true };

/** The reason recorded on URLs an admin removed from the index (DELETE /api/documents). */
export const REMOVED_BY_ADMIN = 'removed by an admin';
