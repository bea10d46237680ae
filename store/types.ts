/** Types shared by every stage that reads or writes the crawl database. */

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
};

/** What a focused crawl found a stored page to be about: its score and its classes, best first. */
export type DocumentTopic = { readonly score: number; readonly classes: readonly { readonly name: string; readonly score: number }[] };

/** What the parser extracted from a page: the unit the document store keeps and the index indexes. */
export type PageContent = {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly headings: readonly string[];
  readonly text: string;
};

export type StoredDocument = PageContent & {
  readonly id: number;
  readonly contentType: string;
  /** The page's language tag as it gave it (`<html lang>` or Content-Language), if it did. */
  readonly lang?: string;
  readonly bytes: number;
  readonly truncated: boolean;
  readonly httpStatus: number;
  readonly fetchedAt: number;
  readonly hash: string;
  /** Set by a focused crawl. */
  readonly topic?: DocumentTopic;
};

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
};
