/**
 * "Did you mean": the query with each word the index does not know replaced by the word it was
 * likely meant to be, spelled as a page spells it. The same machinery as forgiving search
 * (corrections.ts): candidates from the typo index, chosen by frequency against edits and first
 * letters — and, since a word may be typed halfway, its most frequent completion counts as a
 * third of an edit ("semv" → "semver", not the more frequent "serve" one edit away).
 */
import { tokenize, words } from '../ingest/tokenize.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { WordIndexes } from '../structures/vocabulary.ts';
import { allCompletions } from './completions.ts';
import { candidates, likeliest, maxDistance, type Correction } from './corrections.ts';
import type { QueryDocuments } from './documents.ts';
import type { LooseWord, ParsedQuery } from './parse.ts';
import type { SpellingLookup } from './surface.ts';

/** What a completion costs against an edit. */
const COMPLETION_DISTANCE = 1 / 3;
/** "Did you mean" also tries words of three letters (one edit). */
const SHORTEST = 3;

/** The corrected query, or undefined when no word can be corrected. */
export async function suggest(
  q: ParsedQuery,
  stats: CorpusStatistics,
  vocabulary: WordIndexes,
  spellings: SpellingLookup,
  docs: QueryDocuments,
): Promise<string | undefined> {
  const unknown = new Set(q.terms.filter((t) => stats.docFrequency(t) === 0));
  if (!unknown.size) return undefined;
  // Rewrite the query as typed: each word whose term is unknown is replaced.
  const found = [...q.raw.matchAll(/[\p{L}\p{N}][\p{L}\p{N}\p{M}_]*/gu)];
  const replacements = new Map<number, string>();
  for (const m of found) {
    const [term, ...more] = tokenize(m[0]);
    const [word] = words(m[0]);
    if (term === undefined || word === undefined || more.length || !unknown.has(term)) continue;
    const meant = meantWord({ term, word }, stats, vocabulary);
    if (meant === undefined) continue;
    const t = stats.term(meant);
    replacements.set(m.index!, (await spellings.closest(t, word, docs)) ?? t);
  }
  if (!replacements.size) return undefined;
  let out = '';
  let at = 0;
  for (const m of found) {
    const r = replacements.get(m.index!);
    if (r === undefined) continue;
    out += q.raw.slice(at, m.index!) + r;
    at = m.index! + m[0].length;
  }
  return out + q.raw.slice(at);
}

/** The term `w` was likely meant to be: a correction, or its most frequent completion. */
function meantWord(w: LooseWord, stats: CorpusStatistics, vocabulary: WordIndexes): number | undefined {
  const max = maxDistance(w.word, SHORTEST);
  const found: Correction[] = max ? candidates(w, stats, vocabulary.typos, max) : [];
  const [completion] = w.word.length >= SHORTEST ? allCompletions(w, stats, vocabulary.prefixes, 1) : [];
  if (completion !== undefined) found.push({ id: completion, distance: COMPLETION_DISTANCE });
  return likeliest(w, found, stats)?.id;
}
