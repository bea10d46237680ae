/** The fields a document is indexed by (their weights: structures/bm25f.ts), and its words in each. */
import type { PageContent } from '../../model/index.ts';

export const FIELDS = ['title', 'headings', 'description', 'url', 'anchor', 'body'] as const;
export type Field = (typeof FIELDS)[number];

/**
 * The document's text of each field, in FIELDS order. Anchor text is not part of a page: it is empty
 * here and filled in by the index from the links to the page (SearchIndex.upsert). The URL's words
 * are its host and decoded path.
 */
export function fieldTexts(doc: PageContent): string[] {
  let urlWords = doc.url;
  try {
    const u = new URL(doc.url);
    urlWords = `${u.hostname} ${decodeURIComponent(u.pathname)}`;
  } catch {
    /* keep the raw string */
  }
  return [doc.title, doc.headings.join('\n'), doc.description, urlWords, '', doc.text];
}

/** Whether a field's words count their diacritics (exact forms): the URL's words are no one's spelling. */
export const SPELLED = FIELDS.map((f) => f !== 'url');
