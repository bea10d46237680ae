/**
 * Phrase evidence for ranking: BM25 treats a page as a bag of words, so "create user" matches a
 * page that says "create a table … user" as well as one that says "CREATE USER". The best
 * candidates are re-scored by how many of the query's adjacent word pairs also stand side by side,
 * in order, in the page's title, headings and (the start of its) body.
 */
import type { PageContent } from '../store/types.ts';
import { stemmerFor, tokenize, tokenizeWithOffsets, type PositionedToken } from './tokenize.ts';

/** How much each field's phrase matches count. */
const FIELD_PHRASE_WEIGHT = { title: 1, headings: 0.5, body: 0.3 } as const;
/** The body is read this far (a phrase on a page is usually near its start; this bounds the cost). */
export const BODY_CHARS = 5000;

/**
 * The tokens phraseEvidence reads of a body, for a query's terms (a snippet of a short page can
 * use them too). Words that cannot be one of the terms are left unstemmed (stemmerFor).
 */
export function bodyStartTokens(text: string, terms: readonly string[]): PositionedToken[] {
  return tokenizeWithOffsets(text.length > BODY_CHARS ? text.slice(0, BODY_CHARS) : text, stemmerFor(terms));
}

/**
 * 0 (no adjacent pair of query words is adjacent in the page) up to 1.8 (all of them, in every
 * field). `body`: the body's bodyStartTokens, if already made.
 */
export function phraseEvidence(doc: PageContent, terms: readonly string[], body: readonly PositionedToken[] = bodyStartTokens(doc.text, terms)): number {
  if (terms.length < 2) return 0;
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < terms.length; i++) pairs.add(`${terms[i]} ${terms[i + 1]}`);
  const fraction = (tokens: readonly string[]) => {
    const found = new Set<string>();
    for (let i = 0; i + 1 < tokens.length && found.size < pairs.size; i++) {
      const pair = `${tokens[i]} ${tokens[i + 1]}`;
      if (pairs.has(pair)) found.add(pair);
    }
    return found.size / pairs.size;
  };
  return (
    FIELD_PHRASE_WEIGHT.title * fraction(tokenize(doc.title, stemmerFor(terms))) +
    FIELD_PHRASE_WEIGHT.headings * fraction(tokenize(doc.headings.join('\n'), stemmerFor(terms))) +
    FIELD_PHRASE_WEIGHT.body * fraction(body.map((t) => t.term))
  );
}
