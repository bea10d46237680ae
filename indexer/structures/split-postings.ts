/**
 * The index's postings, split in two: a frequent term's documents are read from its impact list
 * (impacts.ts), every other term's from FlexSearch (postings.ts).
 *
 * Why: the impact lists already hold, for every term in at least `headDf` documents, each of its
 * documents (4 bytes of id and 4 of impact, outside the heap). FlexSearch held them all again, as
 * 8-byte elements of JavaScript arrays on the heap — and those few thousand frequent terms are
 * most of the postings (bench/index-memory: FlexSearch's arrays were ~3.6 of the 4.4 KB of heap a
 * document). So a pair (term, document) is kept once: in the term's impact list when it has one
 * and the document's id is dense (the lists cover those only), else in FlexSearch.
 *
 * A term gets a list once, when it first reaches `headDf` documents, and keeps it (impacts.ts):
 * the list is built from FlexSearch's postings, which then let those documents go. So which side
 * holds a pair depends only on the term's list (never taken away) and the id (dense or not, for
 * good), and both sides always agree. Where FlexSearch's removals cannot be made here (another
 * FlexSearch version: postings.ts `ownsRemovals`), it keeps every posting, as before.
 */
import { ImpactLists } from './impacts.ts';
import { Postings } from './postings.ts';
import { isDense } from './document-vectors.ts';
import type { IndexContents } from './index-contents.ts';

export class SplitPostings {
  /** The postings of terms without an impact list (and of documents the lists do not cover). */
  readonly flex = new Postings();
  readonly impacts: ImpactLists;
  private readonly split = this.flex.ownsRemovals;

  constructor(
    private readonly contents: IndexContents,
    headDf: number,
  ) {
    const { dictionary } = contents;
    this.impacts = new ImpactLists(
      contents,
      (t) => this.flex.docsWith(dictionary.term(t), dictionary.docFrequencyOf(t)),
      headDf,
      // (A list built from FlexSearch's postings of the term: they are the list's now. Postings
      // ignores this, and the predicate of rebuild, where it cannot make removals itself.)
      (t, ids) => this.flex.withoutDocs(dictionary.term(t), new Set(ids)),
    );
  }

  /** Sets a document's terms; `before`: the terms it had (none if it is new). Call after the term statistics have the document. */
  set(docId: number, terms: readonly string[], before: readonly string[] = []): void {
    this.flex.set(docId, this.inFlex(docId, terms), this.inFlex(docId, before));
  }

  /** Adds terms to a document already in the index. */
  append(docId: number, terms: readonly string[]): void {
    this.flex.append(docId, this.inFlex(docId, terms));
  }

  /** Takes `terms` out of a document's postings; `all`: the terms it keeps. */
  drop(docId: number, terms: readonly string[], all: () => readonly string[]): void {
    this.flex.drop(docId, this.inFlex(docId, terms), () => this.inFlex(docId, all()));
  }

  /** Removes a document; `terms`: the terms it has. (Its entries in the impact lists go stale: impacts.ts `removing`.) */
  remove(docId: number, terms: readonly string[]): void {
    this.flex.remove(docId, this.inFlex(docId, terms));
  }

  /** Every document containing `term`, `limit` at most (it must be at least the term's document frequency to get them all). */
  docsWith(term: string, limit: number): number[] {
    const t = this.split ? this.contents.dictionary.termId(term) : undefined;
    if (t === undefined || !this.impacts.has(t)) return this.flex.docsWith(term, limit);
    const listed = this.impacts.docs(t, limit);
    // (Documents with ids the lists do not cover stay in FlexSearch: rare, and only in an index that has such ids.)
    if (this.contents.vectors.allDense || listed.length >= limit) return listed;
    return [...listed, ...this.flex.docsWith(term, limit - listed.length)];
  }

  /** Makes both sides anew from a loaded index's vectors: the impact lists first, then FlexSearch without what they hold. */
  rebuild(docs: ReadonlyMap<number, { readonly termIds: Uint32Array }>, terms: readonly string[]): void {
    this.impacts.rebuild();
    this.flex.rebuild(docs, terms, (t, id) => this.impacts.has(t) && isDense(id));
  }

  /** The terms of `terms` whose pair with the document FlexSearch holds. */
  private inFlex(docId: number, terms: readonly string[]): readonly string[] {
    if (!this.split || !isDense(docId)) return terms;
    return terms.filter((term) => {
      const t = this.contents.dictionary.termId(term);
      return t === undefined || !this.impacts.has(t);
    });
  }
}
