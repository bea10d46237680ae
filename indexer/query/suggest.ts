/**
 * "Did you mean": the query with each word the index does not know replaced by the closest known
 * one (edit distance ≤ 2, the most frequent of the closest), spelled as a page spells it.
 */
import { editDistance } from '../../lib/edit-distance.ts';
import { tokenize, tokenizeWithOffsets } from '../ingest/tokenize.ts';
import type { Postings } from '../structures/postings.ts';
import type { TermStats } from '../structures/term-stats.ts';
import type { QueryDocuments } from './documents.ts';
import type { ParsedQuery } from './parse.ts';

/** The corrected query, or undefined when no word can be corrected. */
export async function suggest(q: ParsedQuery, stats: TermStats, postings: Postings, docs: QueryDocuments): Promise<string | undefined> {
  const unknown = new Set(q.terms.filter((t) => stats.docFrequency(t) === 0));
  if (!unknown.size) return undefined;
  // Rewrite the query as typed: each word whose term is unknown is replaced by the closest
  // known term, spelled as a page spells it (its stem may not be a word).
  const words = [...q.raw.matchAll(/[\p{L}\p{N}][\p{L}\p{N}\p{M}_]*/gu)];
  const replacements = new Map<number, string>();
  for (const m of words) {
    const tokens = tokenize(m[0]);
    if (tokens.length !== 1 || !unknown.has(tokens[0]!)) continue;
    const best = closestTerm(tokens[0]!, stats.dictionary());
    if (!best) continue;
    replacements.set(m.index!, (await surfaceOf(best, m[0].toLowerCase(), postings, docs)) ?? best);
  }
  if (!replacements.size) return undefined;
  let out = '';
  let at = 0;
  for (const m of words) {
    const r = replacements.get(m.index!);
    if (r === undefined) continue;
    out += q.raw.slice(at, m.index!) + r;
    at = m.index! + m[0].length;
  }
  return out + q.raw.slice(at);
}

/** How a page holding `term` writes it: of its spellings there, the one closest to `typed`. */
async function surfaceOf(term: string, typed: string, postings: Postings, docs: QueryDocuments): Promise<string | undefined> {
  const [id] = postings.docsWith(term, 1);
  const d = id === undefined ? undefined : await docs.get(id);
  if (!d) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const text of [d.title, d.headings.join('\n'), d.text.slice(0, 100_000)]) {
    for (const t of tokenizeWithOffsets(text)) {
      if (t.term !== term) continue;
      const surface = text.slice(t.start, t.end).toLowerCase();
      const distance = editDistance(surface, typed, 8);
      if (distance < bestDistance) {
        best = surface;
        bestDistance = distance;
      }
    }
  }
  return best;
}

/** The most frequent term at the smallest edit distance (1 or 2) from `word`, if any. */
function closestTerm(word: string, dictionary: Iterable<[string, number]>): string | undefined {
  if (word.length < 3) return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  let bestDf = 0;
  const max = word.length <= 4 ? 1 : 2;
  for (const [term, df] of dictionary) {
    if (Math.abs(term.length - word.length) > max || term[0] !== word[0]) continue;
    const d = editDistance(word, term, Math.min(max, bestDistance));
    if (d < bestDistance || (d === bestDistance && df > bestDf)) {
      best = term;
      bestDistance = d;
      bestDf = df;
    }
  }
  return bestDistance <= max ? best : undefined;
}
