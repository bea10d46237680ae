/**
 * The first pass over many candidates (candidates.ts): each query term adds its weight × impact
 * to a per-document sum read in sequence from its impact list (structures/impacts.ts), counts
 * title matches and sets the bits of the groups it is in; excluded terms set another bit. The
 * candidates are then read off the rarest group's documents (or, `partial`, every group's), with
 * an estimate that is the exact score's formula (bm25f.ts `slotScorer`) on the lists' figures.
 * Terms without an impact list (rare ones, in an OR) are read from their vectors. Arrays by
 * document id, not maps: a common word touches every document.
 *
 * The arrays' lifetime: `FirstPass` owns them, made once and grown with the index (fresh arrays
 * of this size cost page faults and collections at every query), all zero between queries. A
 * query's `Pass` sums into them, reads its candidates off them, and sets back to zero what it
 * touched before it returns. The candidates and estimates it returns are views of the last two:
 * valid until the next query's first pass, so the caller reads them before its first wait
 * (search-index.ts `rank`) — when the query's view of the index is still the index itself.
 */
import { coverageFactor, linkScale, titleBonus } from '../structures/bm25f.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { ById } from '../structures/document-vectors.ts';
import { currentDoc, entryDoc, type Block, type ImpactLists } from '../structures/impacts.ts';
import type { OwnIndex } from '../structures/index-view.ts';
import type { SplitPostings } from '../structures/split-postings.ts';
import { indexOf, inTitle } from '../structures/vector.ts';
import { bitCount, ENOUGH_FULL, groupIdfs, missedIdf } from './coverage.ts';
import { type Scratch, scratchOf } from './first-pass-scratch.ts';
import { type HeldGroup, heldBits } from './together.ts';
import type { SlotWeights } from './weights.ts';

/**
 * What matching reads: this index as of the query's start (its documents, and how many of them
 * hold a term: what reading its postings costs, never a weight) and the corpus's figures a first
 * pass weighs by (a query's Lens: on a shard, the whole corpus's).
 */
export type MatchReads = { readonly documents: OwnIndex; readonly stats: CorpusStatistics };

/** Matching documents; with `estimates` (a first pass's scores, aligned) when there were many. */
export type Match = { ids: ArrayLike<number>; partial: boolean; estimates?: Float64Array };

/** Bits of the mask: one per group (so at most MAX_GROUPS), excluded, seen, own. */
export const MAX_GROUPS = 28;
const EXCLUDED = 1 << 31;
const SEEN = 1 << 30;
const SEEN_ANY = 1 << 29;
/** The document holds the word itself of the slot whose alternatives alone cost (weights.ts `alone`). */
const OWN = 1 << 28;
/** Candidates are read off every document's bits in order, not entry by entry, when the lists to read hold more than 1/DENSE_READ of the index's documents. */
const DENSE_READ = 4;

/** What a first pass is asked: the query's groups (rarest first), its weights, the terms it excludes and its filters. */
export type FirstPassAsk = {
  readonly groups: readonly ({ readonly terms: readonly string[]; readonly optional?: boolean } & HeldGroup)[];
  readonly weights: SlotWeights;
  readonly excludedIds: readonly number[];
  readonly onSource: ((id: number) => boolean) | undefined;
  /** No document matches every group (the exact path found none): those matching any are read. */
  readonly partialOnly: boolean;
  /** How many groups a candidate may miss (coverage.ts), and the groups it holds one of at least (indexes of `groups`). */
  readonly maxMissing: number;
  readonly sources: readonly number[];
  readonly reads: MatchReads;
};

/** A term the first pass reads, with its weight, whether it is the word itself, and its slot. */
type SlotTerm = { readonly t: number; readonly w: number; readonly own: boolean; readonly slot: number };

/** The first pass's arrays, and the passes over them (one query at a time). */
export class FirstPass {
  private scratch = scratchOf(0);

  constructor(
    private readonly postings: Pick<SplitPostings, 'docsWith'>,
    private readonly impacts: ImpactLists,
  ) {}

  run(ask: FirstPassAsk): Match {
    const size = ask.reads.documents.byId().source.length;
    if (this.scratch.acc.length < size) this.scratch = scratchOf(size);
    return oneWord(ask, this.impacts, this.scratch) ?? new Pass(ask, this.scratch, this.postings, this.impacts).run();
  }
}

/** One word, nothing excluded, no filter: its list is the answer, and the estimates come straight off it. */
function oneWord(ask: FirstPassAsk, impacts: ImpactLists, scratch: Scratch): Match | undefined {
  const { groups, excludedIds, onSource, partialOnly, reads } = ask;
  if (groups.length !== 1 || groups[0]!.terms.length !== 1 || excludedIds.length || onSource || partialOnly) return undefined;
  const t = reads.documents.ownTermId(groups[0]!.terms[0]!);
  if (t === undefined || !impacts.has(t)) return undefined;
  return { ...impacts.estimate(t, reads.stats.idf(t), scratch), partial: false };
}

/** One query's first pass: its steps in order (`run`); the arrays are zero again when it returns. */
class Pass {
  /**
   * Each term's documents, in blocks: to read candidates off, and to clear the arrays after. An
   * impact list is read in place (stale entries are told by their version); a term without one
   * has its postings made into a block, so that every term is read by the same loops.
   */
  private readonly blocksByTerm = new Map<number, readonly Block[]>();
  /** Each distinct term the index holds once, with the bits of every group it is in. */
  private readonly bitsOf = new Map<number, number>();
  /** The slot whose alternatives alone cost (weights.ts `alone`; -1: none), the bits of its terms' groups, what it costs. */
  private readonly costly: number;
  private costlyBits = 0;
  private readonly alone: number;
  /** How much of the link prior this query gives (bm25f.ts linkScale): once, not per candidate. */
  private readonly linkScale: number;
  /** The bits of the groups a candidate must hold (those it may not miss), and each group's IDF (for its coverage). */
  private readonly required: number;
  private readonly groupIdf: Float64Array;
  private readonly byId: ById;
  /** A mask without the groups a document holds only terms of that count together with others it lacks (together.ts). */
  private readonly held: (id: number, mask: number) => number;

  constructor(
    private readonly ask: FirstPassAsk,
    private readonly scratch: Scratch,
    private readonly postings: Pick<SplitPostings, 'docsWith'>,
    private readonly impacts: ImpactLists,
  ) {
    this.costly = ask.weights.alone.findIndex((x) => x < 1);
    this.alone = this.costly >= 0 ? ask.weights.alone[this.costly]! : 1;
    this.linkScale = linkScale(ask.weights.idfSum);
    this.byId = ask.reads.documents.byId();
    this.groupIdf = groupIdfs(ask.groups, ask.weights, ask.reads.stats);
    const optional = ask.groups.reduce((bits, g, i) => (g.optional && ask.maxMissing > 0 ? bits | (1 << i) : bits), 0);
    this.required = ((1 << ask.groups.length) - 1) & ~optional;
    this.held = heldBits(ask.groups, (id, t) => ask.reads.documents.contains(id, t)) ?? ((_, m) => m);
  }

  run(): Match {
    const { groups, partialOnly } = this.ask;
    this.groupBits();
    this.sumSlots();
    this.markExcluded();
    let result = partialOnly
      ? undefined
      : this.read(
          this.ask.sources.flatMap((i) => groups[i]!.terms),
          SEEN,
          true,
        );
    if (!result?.ids.length && groups.length > 1)
      result = this.read(
        groups.flatMap((g) => g.terms),
        SEEN_ANY,
        false,
      );
    this.clear();
    return result ?? { ids: [], partial: false };
  }

  private groupBits(): void {
    const docs = this.ask.reads.documents;
    this.ask.groups.forEach((g, bit) => {
      for (const term of g.terms) {
        const t = docs.ownTermId(term);
        if (t !== undefined && docs.holdingOf(t) > 0) this.bitsOf.set(t, (this.bitsOf.get(t) ?? 0) | (1 << bit));
      }
    });
  }

  /**
   * Slot by slot (a query word and its alternatives, each at its weight: weights.ts): a word
   * alone adds its part; a word with alternatives adds, per document, the best of them — as the
   * exact scorer does, so that a page holding many completions is not estimated above one
   * holding the best. In the slot whose alternatives alone cost (a last word typed whole,
   * forgive.ts), the word's own documents are marked OWN: the others are estimated × `alone`.
   */
  private sumSlots(): void {
    const { acc, titles, best, titled } = this.scratch;
    const { bitsOf, costly } = this;
    // (The slot with most alternatives first: while nothing is summed yet, each document's best
    // of them goes straight into the sums — a pass over its entries saved, a word being typed has
    // dozens.)
    const slots = slotTerms(this.ask.weights, bitsOf).sort((a, b) => b.length - a.length);
    for (const terms of slots) {
      const marks = (own: boolean) => (own && terms[0]!.slot === costly ? OWN : 0);
      if (terms[0]!.slot === costly) for (const { t } of terms) this.costlyBits |= bitsOf.get(t)!;
      if (terms.length === 1) {
        this.add(terms[0]!.t, terms[0]!.w, bitsOf.get(terms[0]!.t)! | marks(terms[0]!.own), acc, titles, false);
        continue;
      }
      if (terms === slots[0]) {
        for (const { t, w, own } of terms) this.add(t, w, bitsOf.get(t)! | marks(own), acc, titles, true);
        continue;
      }
      for (const { t, w, own } of terms) this.add(t, w, bitsOf.get(t)! | marks(own), best, titled, true);
      this.foldBest(terms);
    }
  }

  /** Adds a term's part to each document holding it (or, `keepBest`, keeps the best in `into`). */
  private add(t: number, w: number, bits: number, into: Float64Array, intoTitles: Uint8Array, keepBest: boolean): void {
    // (docsOf also records what to clear after.)
    const [block] = this.docsOf(t);
    const { mask } = this.scratch;
    if (this.impacts.has(t)) {
      this.impacts.accumulate(t, w, bits, into, mask, intoTitles, keepBest);
      return;
    }
    const { documents: docs, stats } = this.ask.reads;
    const impact = stats.impactFunction();
    for (let i = 0; i < block!.length; i++) {
      const id = entryDoc(block!, i);
      const v = docs.vector(id)!;
      const row = indexOf(v.termIds, t);
      const x = w * impact(v, row);
      const isTitled = inTitle(v, row);
      mask[id]! |= bits;
      if (keepBest) {
        if (x > into[id]!) into[id] = x;
        if (isTitled) intoTitles[id] = 1;
      } else {
        into[id]! += x;
        if (isTitled) intoTitles[id]!++;
      }
    }
  }

  /** Each document's best alternative of a slot (in `best`, `titled`) added into the sums, and zero again. */
  private foldBest(terms: readonly SlotTerm[]): void {
    const { acc, titles, best, titled } = this.scratch;
    for (const { t } of terms) {
      for (const b of this.docsOf(t)) {
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

  /** Every current document of an excluded term gets the EXCLUDED bit. */
  private markExcluded(): void {
    const { mask } = this.scratch;
    const { version, source } = this.byId;
    for (const t of this.ask.excludedIds) {
      for (const block of this.docsOf(t)) {
        for (let i = 0; i < block.length; i++) {
          const id = currentDoc(block, i, version, source);
          if (id >= 0) mask[id]! |= EXCLUDED;
        }
      }
    }
  }

  /**
   * The candidates among the documents of `terms`: each once (`seen`: the bit that says it was
   * read), holding every group but those it may miss (`full`) or any, no excluded term, allowed by
   * the filters.
   */
  private read(terms: readonly string[], seen: number, full: boolean): Match {
    const blocks = knownTermIds(this.ask.reads.documents, terms)
      .filter((t) => this.bitsOf.has(t))
      .flatMap((t) => this.docsOf(t));
    // (A candidate must hold every required group and miss at most maxMissing, or — partial — hold any.)
    const need = full ? this.required : 0;
    const spare = full ? this.ask.maxMissing : MAX_GROUPS;
    const n =
      blocks.reduce((k, b) => k + b.length, 0) * DENSE_READ > this.byId.source.length
        ? this.readInOrder(need, spare)
        : this.readEntries(blocks, seen, need, spare);
    const { ids, estimates } = this.scratch;
    const kept = full && this.ask.maxMissing > 0 ? this.onlyFullWhenEnough(n) : n;
    return { ids: ids.subarray(0, kept), partial: !full && kept > 0, estimates: estimates.subarray(0, kept) };
  }

  /** With ENOUGH_FULL candidates holding every group or more, those missing one are dropped (coverage.ts): how many are left. */
  private onlyFullWhenEnough(n: number): number {
    const { ids, estimates, mask } = this.scratch;
    const all = (1 << this.ask.groups.length) - 1;
    let full = 0;
    for (let i = 0; i < n; i++) if ((mask[ids[i]!]! & all) === all) full++;
    if (full < ENOUGH_FULL || full === n) return n;
    let k = 0;
    for (let i = 0; i < n; i++) {
      if ((mask[ids[i]!]! & all) !== all) continue;
      ids[k] = ids[i]!;
      estimates[k++] = estimates[i]!;
    }
    return k;
  }

  /** Whether a document with mask `m` is a candidate: holds the groups `need`, misses at most `spare`, nothing excluded, allowed by the filters. */
  private admits(id: number, m: number, need: number, spare: number): boolean {
    const all = (1 << this.ask.groups.length) - 1;
    if (!(m & all) || m & EXCLUDED || (m & need) !== need) return false;
    const missed = all & ~m;
    if (missed && bitCount(missed) > spare) return false;
    return !this.ask.onSource || this.ask.onSource(id);
  }

  /**
   * Lists holding a good part of the index (a word being typed, "co", and its completions): every
   * document's bits in order, instead of each entry's (several lists may hold a document) all over
   * the arrays. (Only current entries set bits; candidates in id order rank alike: ties go to the
   * lower id.) Returns how many were found.
   */
  private readInOrder(need: number, spare: number): number {
    const { mask, ids, estimates } = this.scratch;
    const size = this.byId.source.length;
    let n = 0;
    for (let id = 0; id < size; id++) {
      const m = this.held(id, mask[id]!);
      if (!this.admits(id, m, need, spare)) continue;
      estimates[n] = this.estimate(id, m);
      ids[n++] = id;
    }
    return n;
  }

  /** The entries of `blocks`, a document once (it may be in several lists), if it matches; returns how many were found. */
  private readEntries(blocks: readonly Block[], seen: number, need: number, spare: number): number {
    const { mask, ids, estimates } = this.scratch;
    let n = 0;
    for (const b of blocks) {
      for (let i = 0; i < b.length; i++) {
        // (Its version need not be checked: only current entries set its bits, and it is read
        // once, at whichever entry.)
        const id = entryDoc(b, i);
        const m = mask[id]!;
        if (m & seen) continue;
        mask[id] = m | seen;
        const held = this.held(id, m);
        if (!this.admits(id, held, need, spare)) continue;
        estimates[n] = this.estimate(id, held);
        ids[n++] = id;
      }
    }
    return n;
  }

  /** A candidate's estimate: the exact score's formula on the lists' figures (with mask `m`). */
  private estimate(id: number, m: number): number {
    const { acc, titles } = this.scratch;
    const { prior, titleLength } = this.byId;
    const { slots, idfSum } = this.ask.weights;
    let x = acc[id]! + (titles[id] ? titleBonus(idfSum, titles[id]!, slots, titleLength[id]!) : 0) + this.linkScale * prior[id]!;
    const missed = ((1 << this.ask.groups.length) - 1) & ~m;
    if (missed) x *= coverageFactor(idfSum - missedIdf(this.groupIdf, missed), idfSum);
    return m & this.costlyBits && !(m & OWN) ? x * this.alone : x;
  }

  /** Sets back to zero what the pass touched: entry by entry, or — when that is a good part of the index — all at once. */
  private clear(): void {
    const { acc, mask, titles } = this.scratch;
    const size = this.byId.source.length;
    const touched = [...this.blocksByTerm.values()].flat();
    if (touched.reduce((n, b) => n + b.length, 0) * 8 > size) {
      acc.fill(0, 0, size);
      mask.fill(0, 0, size);
      titles.fill(0, 0, size);
      return;
    }
    for (const b of touched) {
      for (let i = 0; i < b.length; i++) {
        const id = entryDoc(b, i);
        acc[id] = 0;
        mask[id] = 0;
        titles[id] = 0;
      }
    }
  }

  private docsOf(t: number): readonly Block[] {
    let blocks = this.blocksByTerm.get(t);
    if (!blocks) {
      const docs = this.ask.reads.documents;
      const { impacts } = this;
      blocks = impacts.has(t) ? impacts.blocks(t) : [impacts.blockOf(this.postings.docsWith(docs.ownTerm(t), docs.holdingOf(t)))];
      this.blocksByTerm.set(t, blocks);
    }
    return blocks;
  }
}

/** The ids of the terms this index knows (unknown terms match nothing). */
export function knownTermIds(docs: OwnIndex, terms: readonly string[]): number[] {
  return terms.map((t) => docs.ownTermId(t)).filter((x): x is number => x !== undefined);
}

/**
 * The terms the first pass reads, slot by slot (a query word and its alternatives), each with its
 * weight: those of `bitsOf` (in some group, and in some document — as every term of the weights).
 */
function slotTerms(weights: SlotWeights, bitsOf: ReadonlyMap<number, number>): SlotTerm[][] {
  const slots: SlotTerm[][] = Array.from({ length: weights.slots }, () => []);
  weights.termIds.forEach((t, k) => {
    const slot = weights.slotOf[k]!;
    if (bitsOf.has(t)) slots[slot]!.push({ t, w: weights.weights[k]!, own: weights.own[k] === 1, slot });
  });
  return slots.filter((s) => s.length);
}
