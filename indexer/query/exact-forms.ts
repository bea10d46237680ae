/**
 * The exact-form bonus. Folding makes "résumé" and "resume" one term, so each finds both; a page
 * that writes the query's own form ranks above one that writes only the other. A page counts its
 * words written with diacritics in one term per stem (ingest/language/diacritics.ts); a query
 * word typed with diacritics is then written exactly by a page that has that term, and one typed
 * without, by a page where the stem occurs more often than its diacritic forms.
 *
 * Only the words whose diacritic term the index holds take part: for a query in English on
 * English pages there are none, and nothing is read. Otherwise two binary searches in a scored
 * candidate's vector per such word.
 */
import { diacriticTerm } from '../ingest/language/diacritics.ts';
import { FIELDS } from '../ingest/fields.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import { MAX_TF } from '../structures/index-contents.ts';
import type { IndexedDocuments } from '../structures/index-view.ts';
import { type DocVector, freqIn, indexOf, recordOf } from '../structures/vector.ts';
import type { QueryLanguages } from './languages.ts';

/** How much a page gains when it writes every such query word as typed (× 1 + this). */
export const EXACT_FORM_WEIGHT = 0.1;

const F = FIELDS.length;

/** What exactForms reads of a query: its terms, their stems in other languages, and those typed with diacritics. */
export type ExactFormQuery = { readonly terms: readonly string[]; readonly languages?: QueryLanguages; readonly diacritics?: readonly string[] };

/** A query word that has diacritic forms in the index: its stems' ids and their diacritic terms' ids. */
type Word = { readonly stems: readonly number[]; readonly forms: readonly (number | undefined)[]; readonly typedWithDiacritics: boolean };

/**
 * Scores → scores with the bonus, for the query `q`; the identity when no word of the query has a
 * diacritic form in the index.
 */
export function exactForms(stats: CorpusStatistics, docs: IndexedDocuments, q: ExactFormQuery): (ids: ArrayLike<number>, scores: Float64Array) => Float64Array {
  const typed = new Set(q.diacritics ?? []);
  const words: Word[] = [];
  for (const term of q.terms) {
    const stems = [...new Set(q.languages?.stems.get(term) ?? [term])];
    const known = stems.flatMap((s) => {
      const id = stats.termId(s);
      return id === undefined ? [] : [{ id, form: stats.termId(diacriticTerm(s)) }];
    });
    if (known.some((k) => k.form !== undefined))
      words.push({ stems: known.map((k) => k.id), forms: known.map((k) => k.form), typedWithDiacritics: typed.has(term) });
  }
  if (!words.length) return (_ids, scores) => scores;
  return (ids, scores) => {
    for (let i = 0; i < ids.length; i++) {
      const v = docs.vector(ids[i]!);
      if (!v || scores[i] === 0) continue;
      let exact = 0;
      for (const w of words) if (writesExactly(v, w)) exact++;
      scores[i] = scores[i]! * (1 + (EXACT_FORM_WEIGHT * exact) / words.length);
    }
    return scores;
  };
}

/** Whether the page writes the query word as it was typed (with its diacritics, or without). */
function writesExactly(v: DocVector, w: Word): boolean {
  for (let k = 0; k < w.stems.length; k++) {
    const row = indexOf(v.termIds, w.stems[k]!);
    if (row < 0) continue;
    const form = w.forms[k];
    const formRow = form === undefined ? -1 : indexOf(v.termIds, form);
    if (w.typedWithDiacritics) return formRow >= 0;
    // Without: some occurrence of the stem has none. (Frequencies saturate at MAX_TF: a page that
    // has that many diacritic forms in a field is taken to have the plain one too.)
    return formRow < 0 || occurrences(v, row) > occurrences(v, formRow) || saturated(v, formRow);
  }
  return false;
}

function occurrences(v: DocVector, row: number): number {
  let n = 0;
  const record = recordOf(v.freqs, v.termIds.length, row);
  for (let f = 0; f < F; f++) n += freqIn(v.freqs, row, record, f);
  return n;
}

function saturated(v: DocVector, row: number): boolean {
  const record = recordOf(v.freqs, v.termIds.length, row);
  for (let f = 0; f < F; f++) if (freqIn(v.freqs, row, record, f) === MAX_TF) return true;
  return false;
}
