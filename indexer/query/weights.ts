/**
 * What each term of a query weighs. A query word is a slot; its alternatives are the word itself
 * (if the index knows it) and, in a forgiving search, its completions or its correction
 * (forgive.ts), each counting for a factor below 1. An alternative's IDF is capped at that of the
 * slot's most frequent term, as Lucene blends the statistics of a fuzzy query's expansions: a
 * completion or a correction found in few pages must not outweigh the word itself — with the same
 * evidence, a page holding the word as typed always ranks above one holding an alternative. When
 * the query's other words tell which completion was meant (shares.ts `withShares`), the cap is
 * that completion's IDF, and the others count their share of it: "foreign key cons" weighs
 * "constraint" as such, not as "consider".
 */
import { slotScorer, type SlotWeights } from '../structures/bm25f.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexedDocuments } from '../structures/index-view.ts';

export type { SlotWeights } from '../structures/bm25f.ts';

/**
 * A term that may stand for a query word, and how much it counts: the word itself (`own`: its
 * stem, in some language; 1), or a completion or correction (below 1 when the word itself is in
 * the index: it ranks above them). `share` (0–1, a last word's completions when the query has
 * other words): how often it is found with them, next to the completion found with them most.
 */
export type Alternative = {
  readonly term: string;
  readonly factor: number;
  readonly own?: boolean;
  readonly share?: number;
  /** A synonym's (synonyms.ts): the entry of the rules it stands for, as written ("kill"). */
  readonly synonym?: string;
  /** A synonym of several words: the others, which a page must hold for this one to count (together.ts). */
  readonly together?: readonly string[];
};

/**
 * One query word: its term, and what may stand for it (the term itself first, when known).
 * `blend`: the word is rare next to an alternative (a typo found in a page or two, a word typed
 * halfway that is also a rare word): it weighs no more than its alternatives' IDF either.
 */
export type Slot = { readonly term: string; readonly alternatives: readonly Alternative[]; readonly blend?: boolean; readonly alone?: number };

/** A word in more than this share of the pages says next to nothing about a page ("next" of every page's navigation). */
export const COMMON = 0.9;

/** The slots as the scorers read them; alternatives the index does not know are left out. */
export function slotWeights(stats: CorpusStatistics, slots: readonly Slot[]): SlotWeights {
  const termIds: number[] = [];
  const weights: number[] = [];
  const factors: number[] = [];
  const slotOf: number[] = [];
  const ownFlags: number[] = [];
  const alone: number[] = [];
  const slotIdfs: number[] = [];
  const words: string[] = [];
  const together: (Uint32Array | undefined)[] = [];
  let filled = 0;
  let idfSum = 0;
  const knownId = (term: string) => {
    const id = stats.termId(term);
    return id !== undefined && stats.docFrequencyOf(id) > 0 ? id : undefined;
  };
  for (const slot of slots) {
    const known = slot.alternatives.flatMap((a) => {
      const id = knownId(a.term);
      // (A synonym's words together: none counts where the corpus lacks one of them.)
      const others = a.together?.map(knownId);
      if (id === undefined || others?.includes(undefined)) return [];
      return [{ ...a, id, idf: stats.idf(id), companions: others && Uint32Array.from(others as number[]) }];
    });
    if (!known.length) continue;
    // (Completions with shares are blended at the one found most with the other words. A word on
    // nearly every page is no evidence against an alternative: it does not cap them.)
    const informative = (a: { id: number }) => stats.docFrequencyOf(a.id) <= COMMON * stats.documentCount;
    const cap = Math.min(...known.filter((a) => (a.own && informative(a)) || (!a.own && (a.share === undefined || a.share === 1))).map((a) => a.idf));
    const own = known.find((a) => a.term === slot.term && a.own);
    // The word's stems in the index's languages (languages.ts) are one word: none weighs more than
    // the most frequent — a stem found in few pages is often another word there ("pages", the
    // word unstemmed for a page of a language without a stemmer, is Porter's stem of "pagesize").
    const stemCap = Math.min(...known.filter((a) => a.own && informative(a)).map((a) => a.idf));
    // The slot's IDF (for the title bonus): the word's own, else its best alternative's weight.
    let slotIdf = own ? (slot.blend ? cap : Math.min(own.idf, stemCap)) : 0;
    for (const a of known) {
      // (A completion counts its share too: how often it is found with the query's other words, forgive.ts.)
      const w = a.own && !slot.blend ? Math.min(a.idf, stemCap) : a.factor * Math.min(a.idf, cap) * (a.share ?? 1);
      termIds.push(a.id);
      weights.push(w);
      factors.push(a.factor);
      slotOf.push(filled);
      ownFlags.push(a.own ? 1 : 0);
      together.push(a.companions);
      if (!own) slotIdf = Math.max(slotIdf, w);
    }
    idfSum += slotIdf;
    slotIdfs.push(slotIdf);
    alone.push(slot.alone ?? 1);
    words.push(slot.term);
    filled++;
  }
  return {
    termIds: Uint32Array.from(termIds),
    weights: Float64Array.from(weights),
    factors: Float64Array.from(factors),
    slotOf: Uint16Array.from(slotOf),
    slots: filled,
    words,
    idfSum,
    slotIdf: Float64Array.from(slotIdfs),
    own: Uint8Array.from(ownFlags),
    alone: Float64Array.from(alone),
    ...(together.some(Boolean) ? { together } : {}),
  };
}

/** Each of `ids`'s score for the query (0 for a document not indexed): this index's documents, the corpus's norms. */
export function scoreAll(stats: CorpusStatistics, docs: IndexedDocuments, ids: ArrayLike<number>, weights: SlotWeights): Float64Array {
  const score = slotScorer(weights, stats.impactFunction());
  const scores = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const v = docs.vector(ids[i]!);
    scores[i] = v ? score(v) : 0;
  }
  return scores;
}
