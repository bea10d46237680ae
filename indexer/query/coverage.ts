/**
 * Which of a query's words a candidate may miss (minimum should match). People add words that
 * the page they mean need not hold — "sleep for a second" for the page of `sleep`, "Copy vs
 * Clone" for the pages of Copy and Clone — and with every word required, that page is not even a
 * candidate while pages holding all of them in passing are. So a query of MAY_MISS_FROM bare words
 * or more lets a candidate miss one bare word (two from MAY_MISS_TWO_FROM words); the scorer
 * weighs what it misses (bm25f.ts `coverageFactor`), so a page holding every word still ranks
 * first unless the other holds the important words much better. Words in a phrase or typed as
 * +word are always required, as are the words of a query too short to spare one.
 */
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { ParsedQuery } from './parse.ts';
import type { SlotWeights } from './weights.ts';

/** Groups from which one bare word may be missing. */
export const MAY_MISS_FROM = 3;
/** Groups from which two may be missing. */
export const MAY_MISS_TWO_FROM = 6;

/**
 * When this many pages hold every word, no page missing one is a candidate: the words' own pages
 * are enough to rank from, and the pages missing a word (the union of two words' postings) would
 * cost most of such a query's time. A word may be missed where the pages holding all are few —
 * where an extra word ("vs", "for a second") leaves the wanted page out.
 */
export const ENOUGH_FULL = 200;

/** Which groups a candidate may miss (by index of `q.groups`) and how many of them at most. */
export type Missable = { readonly optional: readonly boolean[]; readonly maxMissing: number };

export function missable(q: Pick<ParsedQuery, 'groups' | 'loose' | 'phrases'>): Missable {
  const n = q.groups.length;
  const maxMissing = n >= MAY_MISS_TWO_FROM ? 2 : n >= MAY_MISS_FROM ? 1 : 0;
  if (!maxMissing) return { optional: q.groups.map(() => false), maxMissing };
  // (A bare word's group holds its term; a phrase's words are required even when also typed bare.)
  const bare = new Set(q.loose.map((w) => w.term));
  for (const p of q.phrases) for (const t of p) bare.delete(t);
  const optional = q.groups.map((g) => g.some((t) => bare.has(t)));
  return { optional, maxMissing: optional.some(Boolean) ? maxMissing : 0 };
}

/**
 * The groups every admissible candidate holds at least one of: the rarest required group, or —
 * when every group may be missed — the rarest `maxMissing` + 1 (a candidate misses at most
 * `maxMissing`). Indexes into `byRarity`, which lists the groups rarest first with their flags.
 */
export function sourceGroups(byRarity: readonly { readonly optional: boolean }[], maxMissing: number): number[] {
  const required = byRarity.findIndex((g) => !g.optional);
  if (required >= 0 || maxMissing === 0) return [Math.max(0, required)];
  return byRarity.slice(0, maxMissing + 1).map((_, i) => i);
}

/** How many bits of `x` are set (a 32-bit mask). */
export function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Each group's IDF as the coverage factor counts it (a first pass's estimates): the largest of its terms' slots' (weights.ts `slotIdf`). */
export function groupIdfs(
  groups: readonly { readonly terms: readonly string[] }[],
  weights: SlotWeights,
  stats: Pick<CorpusStatistics, 'termId'>,
): Float64Array {
  const slotOfTerm = new Map<number, number>();
  for (let k = 0; k < weights.termIds.length; k++) slotOfTerm.set(weights.termIds[k]!, weights.slotOf[k]!);
  return Float64Array.from(groups, (g) => {
    let x = 0;
    for (const term of g.terms) {
      const t = stats.termId(term);
      const s = t === undefined ? undefined : slotOfTerm.get(t);
      if (s !== undefined) x = Math.max(x, weights.slotIdf[s]!);
    }
    return x;
  });
}

/** The IDF of the groups of the bits `missed`. */
export function missedIdf(groupIdf: Float64Array, missed: number): number {
  let x = 0;
  for (let b = 0; b < groupIdf.length; b++) if (missed & (1 << b)) x += groupIdf[b]!;
  return x;
}
