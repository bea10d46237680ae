/**
 * Suggestions as you type (/api/suggest): the query as typed, its last word completed — by the
 * terms it is the start of, the most frequent first, each spelled as a page spells it.
 */
import type { TermStats } from '../structures/term-stats.ts';
import type { Vocabulary } from '../structures/vocabulary.ts';
import { allCompletions } from './completions.ts';
import type { QueryDocuments } from './documents.ts';
import { parseQuery } from './parse.ts';
import type { Spellings } from './surface.ts';

export const MAX_SUGGESTIONS = 8;
/** The query's last word: where a completion goes. */
const LAST_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*$/u;

/** Up to `limit` completed queries, distinct, most frequent completion first; [] when the query does not end in a bare word. */
export async function autocomplete(raw: string, stats: TermStats, vocabulary: Vocabulary, spellings: Spellings, docs: QueryDocuments, limit = MAX_SUGGESTIONS): Promise<string[]> {
  const { last } = parseQuery(raw);
  const at = LAST_WORD.exec(raw);
  if (!last || !at) return [];
  vocabulary.sync();
  const own = stats.termId(last.term);
  const ids = allCompletions(last, stats, vocabulary.prefixes, limit);
  // The word itself is a completion too, in its place by frequency.
  if (own !== undefined && stats.docFrequencyOf(own) > 0) ids.push(own);
  ids.sort((a, b) => stats.docFrequencyOf(b) - stats.docFrequencyOf(a));
  const head = raw.slice(0, at.index);
  const out = new Set<string>();
  for (const id of ids.slice(0, limit)) {
    const t = stats.term(id);
    out.add(head + ((await spellings.closest(t, last.word, docs)) ?? t));
  }
  return [...out];
}
