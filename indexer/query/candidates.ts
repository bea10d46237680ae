/**
 * The documents that match a query, and — when there are many — a first estimate of their scores.
 *
 * A query whose rarest group is in at most `exactLimit` documents takes that group's postings and
 * checks the other groups in each candidate's vector; the caller scores them all exactly. A query
 * with more candidates runs a first pass over the impact lists (structures/impacts.ts): each query
 * term adds IDF × impact to a per-document sum read in sequence, so the caller scores exactly only
 * the best few hundred by that estimate.
 *
 * The first pass's arrays (by dense document id) are made once and reused: fresh arrays of this
 * size cost page faults and collections at every query. The answer's `ids` and `estimates` may be
 * views of them: the caller must use them before the next query runs (synchronously).
 */
import { currentDoc, entryDoc, type Block, type ImpactLists } from '../structures/impacts.ts';
import type { SplitPostings } from '../structures/split-postings.ts';
import { titleBonus } from '../structures/bm25f.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexView } from '../structures/index-view.ts';
import { indexOf, inTitle } from '../structures/vector.ts';
import type { ParsedQuery } from './parse.ts';
import { sourceFilter } from './filters.ts';
import type { SlotWeights } from './weights.ts';

/**
 * When a query is scored candidate by candidate, and when in two passes. The defaults keep an
 * exactly scored query under ~2 ms; tests lower them to exercise both ways on small data.
 */
export type IndexTuning = {
  /** A query whose rarest word is in at most this many documents is scored exactly, candidate by candidate. */
  exactLimit: number;
  /**
   * Terms in at least this many documents get an impact list (at most exactLimit). Far below
   * exactLimit: a word being typed stands for dozens of completions, each in a few hundred pages,
   * which the first pass reads in sequence from their lists instead of a vector each (bench/index
   * at 100,000 pages: 9,739 lists instead of 1,816, 11 % more entries, 0.04 KB more heap a page;
   * "jso", 51 completions, 17–20 ms of CPU → 5–6, "compl" 11–14 → 4).
   */
  readonly headDf: number;
};
export const DEFAULT_TUNING: IndexTuning = { exactLimit: 2000, headDf: 100 };

/**
 * What matching reads: this index as of the query's start (its documents, and how many of them
 * hold a term: what reading its postings costs, never a weight) and the corpus's figures a first
 * pass weighs by (a query's Lens: on a shard, the whole corpus's).
 */
export type MatchReads = { readonly documents: IndexView; readonly stats: CorpusStatistics };

/** Matching documents; with `estimates` (a first pass's scores, aligned) when there were many. */
export type Match = { ids: ArrayLike<number>; partial: boolean; estimates?: Float64Array };

/** Candidates are read off every document's bits in order, not entry by entry, when the lists to read hold more than 1/DENSE_READ of the index's documents. */
const DENSE_READ = 4;
/** Bits of the first pass's mask: one per group (so at most MAX_GROUPS), excluded, seen. */
const MAX_GROUPS = 28;
const EXCLUDED = 1 << 31;
const SEEN = 1 << 30;
const SEEN_ANY = 1 << 29;
/** The document holds the word itself of the slot whose alternatives alone cost (weights.ts `alone`). */
const OWN = 1 << 28;

export class Candidates {
  /** A first pass's per-document sums and match bits, by dense id; zero between queries. */
  private acc = new Float64Array(0);
  private mask = new Uint32Array(0);
  private titles = new Uint8Array(0);
  /** A query word with alternatives: each document's best of them, folded into acc and titles after. */
  private best = new Float64Array(0);
  private titled = new Uint8Array(0);
  /** A first pass's candidates and their estimates (each document once at most), valid until the next query. */
  private firstPass = { ids: new Uint32Array(0), estimates: new Float64Array(0) };

  constructor(
    private readonly postings: Pick<SplitPostings, 'docsWith'>,
    private readonly impacts: ImpactLists,
    private readonly tuning: IndexTuning,
  ) {}

  /**
   * The documents that match: every group (any of its terms), no excluded term, and the site:,
   * lang:, type: and topic: filters if given. When nothing matches all groups, documents matching
   * any term are returned and `partial` is set.
   */
  match(q: ParsedQuery, weights: SlotWeights, reads: MatchReads): Match {
    const docs = reads.documents;
    const excludedIds = knownTermIds(docs, q.excluded);
    const onSource = sourceFilter(docs, q);
    const keep = (id: number) => !excludedIds.some((t) => docs.contains(id, t)) && (!onSource || onSource(id));
    if (!q.groups.length) {
      // Only filters (site:): every page they allow, best linked first.
      return { ids: onSource ? [...docs.documentIds()].filter(keep) : [], partial: false };
    }
    const groups = q.groups
      .map((g) => ({ terms: g, ids: knownTermIds(docs, g), df: g.reduce((n, t) => n + docs.docFrequency(t), 0) }))
      .sort((a, b) => a.df - b.df);
    const [rarest, ...others] = groups;
    const twoPass = groups.length <= MAX_GROUPS && docs.allDense;
    if (rarest!.df > this.tuning.exactLimit && twoPass) return this.matchByImpacts(groups, weights, excludedIds, onSource, false, reads);
    if (rarest!.df > 0) {
      // One term: its postings as they are; several (OR): their union.
      const lists = rarest!.terms.map((t) => this.postings.docsWith(t, docs.docFrequency(t)));
      const candidates = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())];
      const filtering = others.length > 0 || excludedIds.length > 0 || onSource !== undefined;
      const ids = filtering ? candidates.filter((id) => others.every((g) => g.ids.some((t) => docs.contains(id, t))) && keep(id)) : candidates;
      if (ids.length || q.groups.length === 1) return { ids, partial: false };
    }
    if (q.groups.length === 1) return { ids: [], partial: false };
    if (twoPass && groups.reduce((n, g) => n + g.df, 0) > this.tuning.exactLimit)
      return this.matchByImpacts(groups, weights, excludedIds, onSource, true, reads);
    const any = new Set<number>();
    for (const t of q.terms) for (const id of this.postings.docsWith(t, docs.docFrequency(t))) any.add(id);
    const ids = [...any].filter(keep);
    return { ids, partial: ids.length > 0 };
  }

  /**
   * The first pass over many candidates: each query term adds IDF × impact to a per-document sum,
   * counts title matches and sets the bits of the groups it is in; excluded terms set another
   * bit. The candidates are then read off the rarest group's documents (or, `partial`, every
   * group's), with an estimate that is the exact score's formula (bm25f.ts `slotScorer`) on the
   * lists' figures. Terms without an impact list (rare ones, in an OR) are read from their
   * vectors. Arrays by document id, not maps: a common word touches every document.
   */
  private matchByImpacts(
    groups: readonly { terms: readonly string[] }[],
    weights: SlotWeights,
    excludedIds: readonly number[],
    onSource: ((id: number) => boolean) | undefined,
    partialOnly: boolean,
    reads: MatchReads,
  ): Match {
    const { documents: docs, stats } = reads;
    const { source, prior, titleLength, version } = docs.byId();
    if (this.acc.length < source.length) {
      this.acc = new Float64Array(source.length);
      this.mask = new Uint32Array(source.length);
      this.titles = new Uint8Array(source.length);
      this.best = new Float64Array(source.length);
      this.titled = new Uint8Array(source.length);
      this.firstPass = { ids: new Uint32Array(source.length), estimates: new Float64Array(source.length) };
    }
    const { acc, mask, titles, best, titled, impacts, firstPass } = this;
    if (groups.length === 1 && groups[0]!.terms.length === 1 && !excludedIds.length && !onSource && !partialOnly) {
      // One word: its list is the answer, and the estimates come straight off it.
      const t = docs.termId(groups[0]!.terms[0]!);
      if (t !== undefined && impacts.has(t)) return { ...impacts.estimate(t, stats.idf(t), firstPass), partial: false };
    }
    // Each term's documents, in blocks: to read candidates off, and to clear the arrays after.
    // An impact list is read in place (stale entries are told by their version); a term without
    // one has its postings made into a block, so that every term is read by the same loops.
    const blocksByTerm = new Map<number, readonly Block[]>();
    const docsOf = (t: number): readonly Block[] => {
      let blocks = blocksByTerm.get(t);
      if (!blocks) {
        blocks = impacts.has(t) ? impacts.blocks(t) : [impacts.blockOf(this.postings.docsWith(docs.term(t), docs.docFrequencyOf(t)))];
        blocksByTerm.set(t, blocks);
      }
      return blocks;
    };
    // Each distinct term once, with the bits of every group it is in.
    const bitsOf = new Map<number, number>();
    groups.forEach((g, bit) => {
      for (const term of g.terms) {
        const t = docs.termId(term);
        if (t !== undefined && docs.docFrequencyOf(t) > 0) bitsOf.set(t, (bitsOf.get(t) ?? 0) | (1 << bit));
      }
    });
    // The exact scorer's q and IDF mass (weights.ts).
    const q = weights.slots;
    const idfSum = weights.idfSum;
    /** Adds a term's part to each document holding it (or, `keepBest`, keeps the best in `into`). */
    const add = (t: number, w: number, bits: number, into: Float64Array, intoTitles: Uint8Array, keepBest: boolean) => {
      // (docsOf also records what to clear after.)
      const [block] = docsOf(t);
      if (impacts.has(t)) return impacts.accumulate(t, w, bits, into, mask, intoTitles, keepBest);
      const impact = stats.impactFunction();
      for (let i = 0; i < block!.length; i++) {
        const id = entryDoc(block!, i);
        const v = docs.vector(id)!;
        const row = indexOf(v.termIds, t);
        const x = w * impact(v, row);
        const titled = inTitle(v, row);
        mask[id]! |= bits;
        if (keepBest) {
          if (x > into[id]!) into[id] = x;
          if (titled) intoTitles[id] = 1;
        } else {
          into[id]! += x;
          if (titled) intoTitles[id]!++;
        }
      }
    };
    // Slot by slot (a query word and its alternatives, each at its weight: weights.ts): a word
    // alone adds its part; a word with alternatives adds, per document, the best of them — as the
    // exact scorer does, so that a page holding many completions is not estimated above one
    // holding the best.
    // A slot whose alternatives alone cost (a last word typed whole, forgive.ts): its word's own
    // documents are marked OWN, and the others that hold an alternative estimated × `alone`.
    const costly = weights.alone.findIndex((x) => x < 1);
    let costlyBits = 0;
    // (The slot with most alternatives first: while nothing is summed yet, each document's best
    // of them goes straight into the sums — a pass over its entries saved, a word being typed has
    // dozens.)
    const slots = slotTerms(weights, bitsOf).sort((a, b) => b.length - a.length);
    for (const terms of slots) {
      const marks = (own: boolean) => (own && terms[0]!.slot === costly ? OWN : 0);
      if (terms[0]!.slot === costly) for (const { t } of terms) costlyBits |= bitsOf.get(t)!;
      if (terms.length === 1) {
        add(terms[0]!.t, terms[0]!.w, bitsOf.get(terms[0]!.t)! | marks(terms[0]!.own), acc, titles, false);
        continue;
      }
      if (terms === slots[0]) {
        for (const { t, w, own } of terms) add(t, w, bitsOf.get(t)! | marks(own), acc, titles, true);
        continue;
      }
      for (const { t, w, own } of terms) add(t, w, bitsOf.get(t)! | marks(own), best, titled, true);
      for (const { t } of terms) {
        for (const b of docsOf(t)) {
          for (let i = 0; i < b.length; i++) {
            const id = entryDoc(b, i);
            if (best[id] === 0 && titled[id] === 0) continue;
            acc[id]! += best[id]!;
            titles[id]! += titled[id]!;
            best[id] = 0;
            titled[id] = 0;
          }
        }
      }
    }
    for (const t of excludedIds) {
      for (const block of docsOf(t)) {
        for (let i = 0; i < block.length; i++) {
          const id = currentDoc(block, i, version, source);
          if (id >= 0) mask[id]! |= EXCLUDED;
        }
      }
    }
    const all = (1 << groups.length) - 1;
    const alone = costly >= 0 ? weights.alone[costly]! : 1;
    /** A candidate's estimate: the exact score's formula on the lists' figures. */
    const estimate = (id: number, m: number) => {
      const x = acc[id]! + (titles[id] ? titleBonus(idfSum, titles[id]!, q, titleLength[id]!) : 0) + prior[id]!;
      return m & costlyBits && !(m & OWN) ? x * alone : x;
    };
    const read = (terms: readonly string[], seen: number, full: boolean): Match => {
      const blocks = knownTermIds(docs, terms)
        .filter((t) => bitsOf.has(t))
        .flatMap(docsOf);
      const { ids, estimates } = firstPass;
      // (A candidate must hold every group, or — partial — any; no excluded term; the filters.)
      const need = full ? all : 0;
      let n = 0;
      if (blocks.reduce((k, b) => k + b.length, 0) * DENSE_READ > source.length) {
        // Lists holding a good part of the index (a word being typed, "co", and its completions):
        // every document's bits in order, instead of each entry's (several lists may hold a
        // document) all over the arrays. (Only current entries set bits; candidates in id order
        // rank alike: ties go to the lower id.)
        for (let id = 0; id < source.length; id++) {
          const m = mask[id]!;
          if (!(m & all) || m & EXCLUDED || (m & need) !== need || (onSource && !onSource(id))) continue;
          estimates[n] = estimate(id, m);
          ids[n++] = id;
        }
      } else {
        for (const b of blocks) {
          for (let i = 0; i < b.length; i++) {
            // A document once (it may be in several lists), if it matches. (Its version need not be
            // checked: only current entries set its bits, and it is read once, at whichever entry.)
            const id = entryDoc(b, i);
            const m = mask[id]!;
            if (m & seen) continue;
            mask[id] = m | seen;
            if (!(m & all) || m & EXCLUDED || (m & need) !== need || (onSource && !onSource(id))) continue;
            estimates[n] = estimate(id, m);
            ids[n++] = id;
          }
        }
      }
      return { ids: ids.subarray(0, n), partial: !full && n > 0, estimates: estimates.subarray(0, n) };
    };
    let result = partialOnly ? undefined : read(groups[0]!.terms, SEEN, true);
    if (!result?.ids.length && groups.length > 1)
      result = read(
        groups.flatMap((g) => g.terms),
        SEEN_ANY,
        false,
      );
    // Clear what was touched: entry by entry, or — when that is a good part of the index — all at once.
    const touched = [...blocksByTerm.values()].flat();
    if (touched.reduce((n, b) => n + b.length, 0) * 8 > source.length) {
      acc.fill(0, 0, source.length);
      mask.fill(0, 0, source.length);
      titles.fill(0, 0, source.length);
    } else {
      for (const b of touched) {
        for (let i = 0; i < b.length; i++) {
          const id = entryDoc(b, i);
          acc[id] = 0;
          mask[id] = 0;
          titles[id] = 0;
        }
      }
    }
    return result ?? { ids: [], partial: false };
  }
}

/** The ids of the terms this index knows (unknown terms match nothing). */
function knownTermIds(docs: IndexView, terms: readonly string[]): number[] {
  return terms.map((t) => docs.termId(t)).filter((x): x is number => x !== undefined);
}

/**
 * The terms the first pass reads, slot by slot (a query word and its alternatives), each with its
 * weight: those of `bitsOf` (in some group, and in some document — as every term of the weights).
 */
function slotTerms(weights: SlotWeights, bitsOf: ReadonlyMap<number, number>): { t: number; w: number; own: boolean; slot: number }[][] {
  const slots: { t: number; w: number; own: boolean; slot: number }[][] = Array.from({ length: weights.slots }, () => []);
  weights.termIds.forEach((t, k) => {
    const slot = weights.slotOf[k]!;
    if (bitsOf.has(t)) slots[slot]!.push({ t, w: weights.weights[k]!, own: weights.own[k] === 1, slot });
  });
  return slots.filter((s) => s.length);
}
