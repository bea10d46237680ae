/** The fields a document is indexed by (their weights: structures/bm25f.ts), and its words in each. */
import type { PageContent } from '../../model/index.ts';
import { words } from './tokenize.ts';

export const FIELDS = ['title', 'headings', 'description', 'url', 'anchor', 'body'] as const;
export type Field = (typeof FIELDS)[number];

/**
 * The document's words (folded, not yet stemmed: analyze stems each distinct word once), field by
 * field, in FIELDS order. Anchor text is not part of a page: it is empty here and filled in by the
 * index from the links to the page (SearchIndex.upsert). When `diacritics` is given, it receives,
 * field by field, the indexes of the words that lost a diacritic to folding; when `identifiers`
 * is, field by field, the identifiers written whole (identifiers.ts).
 */
export function fieldWords(doc: PageContent, diacritics?: number[][], identifiers?: string[][]): string[][] {
  let urlWords = doc.url;
  try {
    const u = new URL(doc.url);
    urlWords = `${u.hostname} ${decodeURIComponent(u.pathname)}`;
  } catch {
    /* keep the raw string */
  }
  const texts = [doc.title, doc.headings.join('\n'), doc.description, urlWords, '', doc.text];
  return texts.map((text, f) => {
    // (The URL's words are no one's spelling: no exact forms there.)
    const marked = diacritics ? (diacritics[f] = []) : undefined;
    return words(text, FIELDS[f] === 'url' ? undefined : marked, identifiers ? (identifiers[f] = []) : undefined);
  });
}
