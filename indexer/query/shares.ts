/**
 * How often a completion is found with the query's other words (forgive.ts weighs a last word's
 * completions by it: "pg_du" is pg_dump, not "pg due"): counted on a bounded sample of each
 * completion's pages in this index, or — on a shard of a cluster — given as the whole corpus's
 * counts by its coordinator (indexer/shards/record.ts counts a shard's with `togetherIn`).
 */
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexedDocuments } from '../structures/index-view.ts';
import type { Alternative } from './weights.ts';

/** A completion's pages checked for the query's other words, at most (withShares)... */
export const SHARE_SAMPLE = 256;
/** ... evenly spread over its first this many (reading all of a frequent completion's pages costs more than the rest of the query)... */
export const SHARE_READ = 1024;
/** ... and this many over all of a word's completions: a word of two or three letters has dozens, each checked on fewer. */
export const SHARE_CHECKS = 1024;

/** The documents holding a term (structures/postings.ts `docsWith`). */
export type DocsWith = (term: string, limit: number) => readonly number[];

/**
 * How many pages hold a completion `term` with every other word of the query (any term of each
 * of `others`): `withShares` counts them in the index; a shard of a cluster is given the whole
 * corpus's counts by its coordinator (indexer/shards).
 */
export type CountTogether = (term: string, others: readonly (readonly string[])[]) => number;

/** What weighing completions by the other words reads: the corpus's statistics, this index's documents and postings, or the corpus's counts. */
export type SharesReads = {
  readonly stats: CorpusStatistics;
  readonly documents: IndexedDocuments;
  readonly docsWith: DocsWith;
  readonly countTogether?: CountTogether;
};

/**
 * The other query words decide which completion was meant: each completion's `share` is how many
 * of its pages hold every other word (any of its alternatives), next to the completion found with
 * them most — "pg_du" is "pg_dump" rather than "pg due", and a completion never found with the
 * other words ("postalcod" for "foreign data wrapper post") weighs nothing (weights.ts). Shares
 * are left out with no other word, or when no completion is found with them. Bounded: the
 * completions are read up to SHARE_READ pages each, of which SHARE_SAMPLE at most, evenly
 * spread, are checked for the other words (a binary search in the page's vector per word) —
 * SHARE_CHECKS in all, shared out rarest completion first (a rare one takes what it has, the
 * frequent ones split the rest); the count found is scaled to all its pages. `checked`: the pages
 * checked.
 */
export function withShares(
  alternatives: readonly Alternative[],
  others: readonly (readonly string[])[],
  reads: SharesReads,
): { alternatives: Alternative[]; checked: number } {
  const { stats, documents, docsWith, countTogether } = reads;
  const sets = others
    .map((ts) => ts.map((t) => stats.termId(t)).filter((id): id is number => id !== undefined && stats.docFrequencyOf(id) > 0))
    .filter((ids) => ids.length);
  if (!sets.length) return { alternatives: [...alternatives], checked: 0 };
  // (Over shards, each completion's count comes from every shard: shards/record.ts bounds its own cost.)
  if (countTogether)
    return sharesOf(
      alternatives,
      alternatives.map((a) => countTogether(a.term, others)),
      0,
    );
  const dfs = alternatives.map((a) => stats.docFrequency(a.term));
  const counts = new Array<number>(alternatives.length).fill(0);
  let left = SHARE_CHECKS;
  let waiting = dfs.filter((df) => df > 0).length;
  for (const k of dfs.map((_, k) => k).sort((a, b) => dfs[a]! - dfs[b]!)) {
    if (!dfs[k]) continue;
    const sample = Math.max(1, Math.min(SHARE_SAMPLE, Math.floor(left / waiting--)));
    const found = sampleTogether(alternatives[k]!.term, sets, documents, dfs[k]!, docsWith, sample);
    left -= found.checked;
    counts[k] = found.count;
  }
  return sharesOf(alternatives, counts, SHARE_CHECKS - left);
}

function sharesOf(alternatives: readonly Alternative[], counts: readonly number[], checked: number): { alternatives: Alternative[]; checked: number } {
  const most = Math.max(0, ...counts);
  if (!most) return { alternatives: [...alternatives], checked };
  return { alternatives: alternatives.map((a, k) => ({ ...a, share: counts[k]! / most })), checked };
}

/**
 * How many of `term`'s pages hold a term of each of `sets` (ids), in this index's `documents`,
 * where `df` pages hold it: read up to SHARE_READ of its pages, check SHARE_SAMPLE of them evenly
 * spread, and scale to all.
 */
export function togetherIn(term: string, sets: readonly (readonly number[])[], documents: IndexedDocuments, df: number, docsWith: DocsWith): number {
  return sampleTogether(term, sets, documents, df, docsWith, SHARE_SAMPLE).count;
}

/** togetherIn with `sample` pages checked at most; `checked`: how many were. */
function sampleTogether(
  term: string,
  sets: readonly (readonly number[])[],
  documents: IndexedDocuments,
  df: number,
  docsWith: DocsWith,
  sample: number,
): { count: number; checked: number } {
  if (!df) return { count: 0, checked: 0 };
  // (Every k-th page of those read, not the first few: pages come in runs of one kind, as crawled.)
  const docs = docsWith(term, Math.min(df, SHARE_READ));
  const step = Math.max(1, Math.ceil(docs.length / sample));
  let n = 0;
  let checked = 0;
  for (let i = 0; i < docs.length; i += step, checked++) if (sets.every((ids) => ids.some((id) => documents.contains(docs[i]!, id)))) n++;
  return { count: checked ? (n * df) / checked : 0, checked };
}
