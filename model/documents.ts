/** What Trawl keeps of a fetched page: the extracted content, stored and indexed. */

/** What the parser extracted from a page: the unit the document store keeps and the index indexes. */
export type PageContent = {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly headings: readonly string[];
  readonly text: string;
  /**
   * The fragment id of its headings that have one: [heading's text, id] in the page's order (the
   * first heading of a text, if several), so that a result can link the section a query found
   * (`page#id`). Absent when none has. (Pairs, not an object keyed by the text: a key is
   * internalized by V8, and the index built from such texts kept ~16 MB more: bench/index-memory.)
   */
  readonly headingIds?: readonly (readonly [heading: string, id: string])[];
};

/** The document formats Trawl reads besides HTML (crawler/documents), as `documents.types` names them. */
export const DOCUMENT_FORMATS = ['pdf', 'docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'text', 'markdown'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** What Trawl knows of a document beyond its text: what a user searches by and sees in a result. */
export type DocumentFacts = {
  readonly format: DocumentFormat;
  readonly author?: string;
  readonly subject?: string;
  readonly keywords?: string;
  /** ISO 8601, as the file declares them. */
  readonly created?: string;
  readonly modified?: string;
  /** PDF pages, slides, sheets; for a flowing document (DOCX, ODT) the page count it declares, if any. */
  readonly pages?: number;
  /** Where each page (slide, sheet) starts in the text: UTF-16 offsets, ascending, the first 0. */
  readonly pageOffsets?: readonly number[];
  /** Pages (slides, sheets) beyond documents.maxPages, not extracted. */
  readonly pagesCut?: number;
  /** Spreadsheet cells beyond the extractor's cap, counted, not extracted. */
  readonly cellsCut?: number;
  /** Characters of text beyond the extractor's cap, dropped. */
  readonly textCut?: number;
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
  /** A document that is not an HTML page (PDF, Office, text…): its format and facts. */
  readonly document?: DocumentFacts;
  /**
   * The SimHash of its text: 64 bits as 16 hex digits (lib/simhash.ts). Pages a few bits apart are
   * near-duplicates (mirrors, print views, versions); absent when the text is too short to tell.
   */
  readonly simhash?: string;
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
