/**
 * Impact lists: for each frequent term, the documents holding it with what the term adds to each
 * one's score (bm25f.ts `impactFunction`, quantized to 15 bits) and whether it is in the title,
 * side by side in typed arrays.
 *
 * Why: a query for a common word has tens of thousands of candidates, and scoring each one from
 * its vector costs a few hundred nanoseconds — the vectors lie all over the heap, and each costs
 * several cache misses. Summing impacts read in sequence costs a few nanoseconds per candidate;
 * the best few hundred by that estimate are then scored exactly (search-index.ts), so that the
 * estimate's small errors (quantization, length norms that drifted) cannot reorder what is shown.
 *
 * These lists exist only for terms in at least `headDf` documents (a few thousand terms hold most
 * postings: 8 bytes per entry; the vectors' frequencies went from two bytes to one to pay for it).
 * They are those terms' postings too: FlexSearch lets a term's documents go once its list is built
 * (split-postings.ts).
 *
 * Updating: a document added appends an entry to the lists of its frequent terms. An entry names
 * the document's version (document-vectors.ts): when a document is replaced or removed, its old entries no
 * longer match its version and are skipped, and a list is compacted once a quarter of it is stale.
 * Impacts are computed with the length norms of the moment they are added; the exact second pass
 * makes up for their drift.
 */
import type { IndexContents } from './index-contents.ts';
import { indexOf, inTitle, type DocVector } from './vector.ts';
import { linkScale, titleBonus } from './bm25f.ts';

/** Impacts are quantized over [0, MAX_IMPACT] (the BM25F part < 1, the per-field part ≤ ~2.4) in 15 bits. */
const MAX_IMPACT = 4;
const LEVELS = 0x7fff;
const STEP = MAX_IMPACT / LEVELS;
/** The top bit of an impact: the term is in the document's title. */
const IN_TITLE = 0x8000;

/** Entries in blocks that are never resized: appending never copies a long list. */
const FIRST_BLOCK = 256;
const MAX_BLOCK = 4096;

/**
 * A run of entries, two 32-bit words each — the document id, then its version (high 16 bits) and
 * the impact (low 16: 15 bits of impact, plus IN_TITLE) — interleaved, so that appending or
 * reading an entry touches one place in memory, not three.
 */
export type Block = { readonly data: Uint32Array; length: number };

/** The document of a block's i-th entry if the entry is current, else -1 (the one place that reads an entry's version). */
export function currentDoc(block: Block, i: number, version: Uint16Array, source: Int32Array): number {
  const id = block.data[2 * i]!;
  return version[id] === block.data[2 * i + 1]! >>> 16 && source[id]! >= 0 ? id : -1;
}

/** The document of a block's i-th entry, current or not. */
export function entryDoc(block: Block, i: number): number {
  return block.data[2 * i]!;
}

/** The next block of a list that has `blocks` blocks: 256, 512, … up to MAX_BLOCK entries. */
function newBlock(blocks: number): Block {
  return { data: new Uint32Array(2 * (blocks >= 4 ? MAX_BLOCK : FIRST_BLOCK << blocks)), length: 0 };
}

class List {
  blocks: Block[] = [];
  length = 0;
  /** Entries known to be stale (their document was replaced or removed since). */
  stale = 0;

  push(id: number, version: number, impact: number, inTitle: boolean): void {
    this.pushWord(id, ((version << 16) | Math.min(LEVELS, Math.round(impact / STEP)) | (inTitle ? IN_TITLE : 0)) >>> 0);
  }

  /** Drops stale entries, keeping the order of the others. */
  compact(version: Uint16Array, source: Int32Array): void {
    const old = this.blocks;
    this.blocks = [];
    this.length = 0;
    this.stale = 0;
    for (const b of old) {
      for (let i = 0; i < b.length; i++) {
        const id = currentDoc(b, i, version, source);
        if (id >= 0) this.pushWord(id, b.data[2 * i + 1]!);
      }
    }
  }

  private pushWord(id: number, word: number): void {
    let last = this.blocks[this.blocks.length - 1];
    if (!last || 2 * last.length === last.data.length) {
      last = newBlock(this.blocks.length);
      this.blocks.push(last);
    }
    last.data[2 * last.length] = id;
    last.data[2 * last.length++ + 1] = word;
    this.length++;
  }
}

export class ImpactLists {
  private lists: (List | undefined)[] = [];

  /**
   * `docsWith(termId)`: every document holding the term (the postings), to build a term's list
   * when it becomes frequent; `built(termId, ids)`: told the documents a list was built with (the
   * postings may then let them go: split-postings.ts).
   */
  constructor(
    private readonly contents: IndexContents,
    private readonly docsWith: (termId: number) => readonly number[],
    readonly headDf: number,
    private readonly built: (termId: number, ids: readonly number[]) => void = () => undefined,
  ) {}

  /** True when the term has a list (it is, or was, in at least headDf documents). */
  has(termId: number): boolean {
    return this.lists[termId] !== undefined;
  }

  /** How many lists there are, and the entries they hold (stale included). */
  size(): { terms: number; entries: number } {
    let terms = 0;
    let entries = 0;
    for (const l of this.lists) {
      if (!l) continue;
      terms++;
      entries += l.length;
    }
    return { terms, entries };
  }

  /**
   * Call right before a document's vector is replaced or removed: its entries go stale. Before its
   * version counter wraps, every list is compacted, so that no stale entry can match it again.
   */
  removing(docId: number, old: DocVector | undefined): void {
    if (!old) return;
    if (this.contents.vectors.byId().version[docId] === 0xffff) this.compactAll();
    const { version, source } = this.contents.vectors.byId();
    for (const t of old.termIds) {
      const list = this.lists[t];
      if (list && ++list.stale > 64 && list.stale * 4 > list.length) list.compact(version, source);
    }
  }

  /** Call after a document's vector is stored (index-contents.ts) and its postings are set. */
  added(docId: number, v: DocVector): void {
    const { version } = this.contents.vectors.byId();
    if (docId >= version.length) return; // not a dense id: the exact path handles such an index
    let impact: ((v: DocVector, row: number) => number) | undefined;
    for (let row = 0; row < v.termIds.length; row++) {
      const t = v.termIds[row]!;
      const list = this.lists[t];
      if (list) list.push(docId, version[docId]!, (impact ??= this.contents.impactFunction())(v, row), inTitle(v, row));
      else if (this.contents.dictionary.docFrequencyOf(t) >= this.headDf) this.build(t);
    }
  }

  /** Builds every list from scratch (after an index is loaded): counted first, then filled in one block each. */
  rebuild(): void {
    this.lists = [];
    const impact = this.contents.impactFunction();
    const { version } = this.contents.vectors.byId();
    const counts = new Uint32Array(this.contents.termCount);
    for (let t = 0; t < counts.length; t++) if (this.contents.dictionary.docFrequencyOf(t) >= this.headDf) counts[t] = 1;
    const heads = counts.slice();
    counts.fill(0);
    const dense = [...this.contents.vectors.ids()].filter((id) => id < version.length);
    for (const id of dense) for (const t of this.contents.vectors.get(id)!.termIds) if (heads[t]) counts[t]!++;
    for (let t = 0; t < counts.length; t++) {
      if (!heads[t]) continue;
      const list = new List();
      list.blocks.push({ data: new Uint32Array(2 * counts[t]!), length: 0 });
      this.setList(t, list);
    }
    for (const id of dense) {
      const v = this.contents.vectors.get(id)!;
      for (let row = 0; row < v.termIds.length; row++) {
        const t = v.termIds[row]!;
        if (heads[t]) this.lists[t]!.push(id, version[id]!, impact(v, row), inTitle(v, row));
      }
    }
  }

  /**
   * For every document holding the term: adds `weight` × impact to `acc`, sets `bits` in `mask`,
   * and counts it in `titles` if it is in the title. (A current document is in a list once: each
   * time it is stored, its version changes.) With `keepBest` — the term is one of several that
   * stand for a query word (query/weights.ts) — `acc` keeps each document's best of them, and
   * `titles` 1 if any is in its title.
   */
  accumulate(termId: number, weight: number, bits: number, acc: Float64Array, mask: Uint32Array, titles: Uint8Array, keepBest = false): void {
    const { version, source } = this.contents.vectors.byId();
    const w = weight * STEP;
    for (const b of this.lists[termId]!.blocks) {
      for (let i = 0; i < b.length; i++) {
        const id = currentDoc(b, i, version, source);
        if (id < 0) continue;
        const x = b.data[2 * i + 1]!;
        mask[id]! |= bits;
        if (keepBest) {
          const v = w * (x & LEVELS);
          if (v > acc[id]!) acc[id] = v;
          if (x & IN_TITLE) titles[id] = 1;
        } else {
          acc[id]! += w * (x & LEVELS);
          if (x & IN_TITLE) titles[id]!++;
        }
      }
    }
  }

  /**
   * A one-word query's candidates: the term's current documents, each with its score as
   * bm25f.ts `scorer` computes it for that word alone (IDF × impact, title bonus, link prior).
   * Written into `into` (as long as there are documents); the views returned are into it.
   */
  estimate(termId: number, idf: number, into: { readonly ids: Uint32Array; readonly estimates: Float64Array }): { ids: Uint32Array; estimates: Float64Array } {
    const list = this.lists[termId]!;
    const { version, source, prior, titleLength } = this.contents.vectors.byId();
    const { ids: out, estimates } = into;
    const w = idf * STEP;
    const scale = linkScale(idf);
    let n = 0;
    for (const b of list.blocks) {
      for (let i = 0; i < b.length; i++) {
        const id = currentDoc(b, i, version, source);
        if (id < 0) continue;
        const x = b.data[2 * i + 1]!;
        out[n] = id;
        estimates[n++] = w * (x & LEVELS) + (x & IN_TITLE ? titleBonus(idf, 1, 1, titleLength[id]!) : 0) + scale * prior[id]!;
      }
    }
    return { ids: out.subarray(0, n), estimates: estimates.subarray(0, n) };
  }

  /**
   * A term's list as it is, stale entries included (an entry is current when its version is the
   * document's and the document is indexed), in blocks: read in place, not copied, by a query.
   */
  blocks(termId: number): readonly Block[] {
    return this.lists[termId]!.blocks;
  }

  /** The term's current documents, in the list's order (the order they were added in), `limit` at most. */
  docs(termId: number, limit: number): number[] {
    const { version, source } = this.contents.vectors.byId();
    const out: number[] = [];
    for (const b of this.lists[termId]!.blocks) {
      for (let i = 0; i < b.length; i++) {
        const id = currentDoc(b, i, version, source);
        if (id >= 0 && out.push(id) >= limit) return out;
      }
    }
    return out;
  }

  /**
   * A block of documents at their current versions, with no impacts: a term without a list (its
   * postings) read by the same loops as a list.
   */
  blockOf(ids: readonly number[]): Block {
    const { version } = this.contents.vectors.byId();
    const data = new Uint32Array(2 * ids.length);
    for (let i = 0; i < ids.length; i++) {
      data[2 * i] = ids[i]!;
      data[2 * i + 1] = version[ids[i]!]! << 16;
    }
    return { data, length: ids.length };
  }

  private build(termId: number): void {
    const list = new List();
    const impact = this.contents.impactFunction();
    const { version } = this.contents.vectors.byId();
    const ids: number[] = [];
    for (const id of this.docsWith(termId)) {
      const v = this.contents.vectors.get(id);
      if (!v || id >= version.length) continue;
      const row = indexOf(v.termIds, termId);
      if (row < 0) continue;
      list.push(id, version[id]!, impact(v, row), inTitle(v, row));
      ids.push(id);
    }
    this.setList(termId, list);
    this.built(termId, ids);
  }

  /** Keeps `lists` a dense array (a far index would turn it into a slow dictionary). */
  private setList(termId: number, list: List): void {
    while (this.lists.length <= termId) this.lists.push(undefined);
    this.lists[termId] = list;
  }

  private compactAll(): void {
    const { version, source } = this.contents.vectors.byId();
    for (const l of this.lists) l?.compact(version, source);
  }
}
