/** Types shared by every stage that reads or writes the crawl database. */

/**
 * A URL record's state (after nlpcrawl's state machine):
 * queued → fetching → fetched | failed | redirected | excluded;
 * `fetching` rows left by a crash are put back to `queued` on the next start.
 */
export type UrlState = 'queued' | 'fetching' | 'fetched' | 'failed' | 'redirected' | 'excluded';

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
  readonly bytes: number;
  readonly truncated: boolean;
  readonly httpStatus: number;
  readonly fetchedAt: number;
  readonly hash: string;
};

export type UrlRecord = {
  readonly id: number;
  readonly url: string;
  readonly host: string;
  readonly depth: number;
  readonly state: UrlState;
  readonly reason: string | null;
  readonly httpStatus: number | null;
  readonly attempts: number;
  readonly discoveredAt: number;
  readonly fetchedAt: number | null;
  /** `<lastmod>` from a sitemap, as written there. */
  readonly lastmod: string | null;
};
