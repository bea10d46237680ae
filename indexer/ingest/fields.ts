/**
 * The fields a document is indexed by, with their BM25F weights and length normalization. Titles
 * and headings say what a page is about, so a match there counts for more than one in the body.
 */
import type { PageContent } from '../../model/index.ts';
import { words } from './tokenize.ts';

export const FIELDS = ['title', 'headings', 'description', 'url', 'anchor', 'body'] as const;
export type Field = (typeof FIELDS)[number];

/** `anchor`: the text of links to the page from other pages (store/anchors.ts). */
export const FIELD_WEIGHT: Readonly<Record<Field, number>> = { title: 3, headings: 2, description: 1.5, url: 1.5, anchor: 2, body: 1 };
/** BM25's b per field: short fields are normalized less. */
export const FIELD_B: Readonly<Record<Field, number>> = { title: 0.5, headings: 0.6, description: 0.5, url: 0.4, anchor: 0.6, body: 0.75 };
export const K1 = 1.2;
/** Weight of the title bonus (stats.ts), relative to the query's IDF mass. */
export const TITLE_BONUS = 0.5;
/** Weight of the link prior: log(1 + pages linking in), added to the score. */
export const LINK_PRIOR = 0.3;
/** Weight of the per-field part of a term's score next to its BM25F part (stats.ts). */
export const FIELD_MATCH = 0.1;

/**
 * The document's words (folded, not yet stemmed: analyze stems each distinct word once), field by
 * field, in FIELDS order. Anchor text is not part of a page: it is empty here and filled in by the
 * index from the links to the page (SearchIndex.upsert).
 */
export function fieldWords(doc: PageContent): string[][] {
  let urlWords = doc.url;
  try {
    const u = new URL(doc.url);
    urlWords = `${u.hostname} ${decodeURIComponent(u.pathname)}`;
  } catch {
    /* keep the raw string */
  }
  return [words(doc.title), words(doc.headings.join('\n')), words(doc.description), words(urlWords), [], words(doc.text)];
}
