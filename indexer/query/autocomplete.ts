/**
 * Suggestions as you type (/api/suggest): the query as typed, its last word completed — by the
 * terms it is the start of, the most frequent first, each spelled as a page spells it.
 */
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { WordIndexes } from '../structures/vocabulary.ts';
import { isIdentifier } from '../ingest/identifiers.ts';
import { allCompletions, completions } from './completions.ts';
import type { QueryDocuments } from './documents.ts';
import { parseQuery } from './parse.ts';
import type { SpellingLookup } from './surface.ts';

export const MAX_SUGGESTIONS = 8;
/** The query's last word: where a completion goes. */
const LAST_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*$/u;
/** ... or the identifier it ends, as typed so far ("pg_st", "pg_"), when it completes to identifiers. */
const LAST_IDENTIFIER = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:_[\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*_?$/u;

/** Up to `limit` completed queries, distinct, most frequent completion first; [] when the query does not end in a bare word. */
export async function autocomplete(
  raw: string,
  stats: CorpusStatistics,
  vocabulary: WordIndexes,
  spellings: SpellingLookup,
  docs: QueryDocuments,
  limit = MAX_SUGGESTIONS,
): Promise<string[]> {
  const { last } = parseQuery(raw);
  if (!last) return [];
  const { identifier } = completions(last, stats, vocabulary.prefixes, limit);
  const at = (identifier !== undefined ? LAST_IDENTIFIER : LAST_WORD).exec(raw);
  if (!at) return [];
  const own = stats.termId(identifier ?? last.term);
  const ids = allCompletions(last, stats, vocabulary.prefixes, limit);
  // The word itself is a completion too, in its place by frequency.
  if (own !== undefined && stats.docFrequencyOf(own) > 0) ids.push(own);
  ids.sort((a, b) => stats.docFrequencyOf(b) - stats.docFrequencyOf(a));
  const head = raw.slice(0, at.index);
  const out = new Set<string>();
  for (const id of ids.slice(0, limit)) {
    const t = stats.term(id);
    // (An identifier is spelled as it is written: no stem to look up.)
    out.add(head + (isIdentifier(t) ? t : ((await spellings.closest(t, last.word, docs)) ?? t)));
  }
  return [...out];
}
