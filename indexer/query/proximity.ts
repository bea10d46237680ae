/**
 * Phrase evidence for ranking: BM25 treats a page as a bag of words, so "create user" matches a
 * page that says "create a table … user" as well as one that says "CREATE USER". The best
 * candidates are re-scored by how many of the query's adjacent word pairs also stand side by side,
 * in order, in the page's title, headings and (the start of its) body.
 */
import type { PageContent } from '../../model/index.ts';
import { stem as defaultStem } from '../ingest/tokenize.ts';
import { adjacentPairs, locate, type Occurrences } from './locate.ts';

/** How much each field's phrase matches count. */
const FIELD_PHRASE_WEIGHT = { title: 1, headings: 0.5, body: 0.3 } as const;
/** The body is read this far (a phrase on a page is usually near its start; this bounds the cost). */
export const BODY_CHARS = 5000;

/** What phraseEvidence reads of a body: its start's occurrences of the terms (a short page's snippet can use them too). */
export function bodyStart(text: string, terms: readonly string[], stem: (word: string) => string = defaultStem): Occurrences {
  return locate(text.length > BODY_CHARS ? text.slice(0, BODY_CHARS) : text, terms, true, stem);
}

/**
 * 0 (no adjacent pair of query words is adjacent in the page) up to 1.8 (all of them, in every
 * field). `body`: the body's bodyStart, if already located; `stem`: the page's language's stemmer.
 */
export function phraseEvidence(doc: PageContent, terms: readonly string[], body: Occurrences = bodyStart(doc.text, terms), stem: (word: string) => string = defaultStem): number {
  if (terms.length < 2) return 0;
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < terms.length; i++) pairs.add(`${terms[i]} ${terms[i + 1]}`);
  const fraction = (o: Occurrences) => adjacentPairs(o, pairs) / pairs.size;
  return (
    FIELD_PHRASE_WEIGHT.title * fraction(locate(doc.title, terms, true, stem)) +
    FIELD_PHRASE_WEIGHT.headings * fraction(locate(doc.headings.join('\n'), terms, true, stem)) +
    FIELD_PHRASE_WEIGHT.body * fraction(body)
  );
}
