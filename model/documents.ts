/** What Trawl keeps of a fetched page: the extracted content, stored and indexed. */

/** What the parser extracted from a page: the unit the document store keeps and the index indexes. */
export type PageContent = {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly headings: readonly string[];
  readonly text: string;
};

/** What a focused crawl found a stored page to be about: its score and its classes, best first. */
export type DocumentTopic = { readonly score: number; readonly classes: readonly { readonly name: string; readonly score: number }[] };

export type StoredDocument = PageContent & {
  /** The id of the URL record it was fetched under. */
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

/**
 * One entry of the change log: a document was stored (`put`) or removed. The index records the
 * last sequence number it holds and replays the rest, so it can always catch up from the store.
 */
export type Change = { readonly seq: number; readonly docId: number; readonly op: 'put' | 'remove' };

/** The text of links to a page, and how many links point to it (the anchor field and link prior). */
export type Anchors = {
  /** Distinct anchor texts of links to the page, the most used first. */
  readonly texts: readonly string[];
  /** Links to it from other pages. */
  readonly sources: number;
};

/** A link found on a page, by its target's identity, with its text (for the anchor field). */
export type AnchorLink = { readonly target: string; readonly text: string };
