/**
 * Exact forms, cheaply. Folding makes "resume" and "résumé" one term, so either finds both; the
 * page that writes the query's own form should rank first. Storing every word's exact form would
 * double a page's terms; instead, only a word that carries diacritics adds one term: its folded
 * stem behind a mark, counting the page's occurrences written with diacritics (analyze.ts). Then
 * (query/exact-forms.ts), for a query word with diacritics, a page has the exact form when it has
 * that term; for a query word without, when the stem occurs more often than its diacritic forms.
 *
 * What it cannot tell apart: two diacritic spellings of one folded stem ("pâte" and "pâté" both
 * count as a diacritic form of "pate"). What it costs: one term per distinct diacritic stem of a
 * page — nothing for English, about a tenth of a French or German page's terms.
 */

/** A character no word holds, first so that no prefix or edit distance of a word ever reaches the term. */
const MARK = '\u0001';

/** The term counting a page's diacritic forms of `term` (a folded stem). */
export function diacriticTerm(term: string): string {
  return MARK + term;
}

/** True for a term made by diacriticTerm (not a word: suggestions and prefixes skip it). */
export function isDiacriticTerm(term: string): boolean {
  return term.charCodeAt(0) === 1;
}
