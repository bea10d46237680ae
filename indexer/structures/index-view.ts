/**
 * One query's view of the index, as it stood when the query started (Tantivy's searcher: a query
 * never sees half an update). A search waits for the store between its steps (token sequences for
 * phrases, texts for phrase evidence, spellings), and pages may be added, replaced or removed
 * meanwhile; every step after a wait reads the same figures and vectors as the steps before it.
 *
 * How, cheaply: the view copies what is small when it opens — the document count, the fields'
 * length sums (BM25F's norms), the number of terms — and reads everything else where it lives.
 * While it is open, IndexContents tells it of each update before making it, and the view keeps
 * what the update is about to change, once per entry: the document frequency of each term of the
 * old and new vectors, and the document's old vector (a reference: vectors are never changed in
 * place). A lookup reads what the view kept, else the live entry, which has not changed since the
 * view opened. So a query that no update straddles reads exactly what it did before views existed,
 * at the cost of one check; one that some update straddles pays for the entries that update
 * changed — nothing per document is copied. Terms interned since the view opened are unknown to
 * it. Closed (SearchIndex closes it when the query settles), it keeps nothing more.
 *
 * Not in the view: the vocabulary's prefix and typo indexes (read as they stand; a term they
 * gained since is unknown to the view's dictionary), the SimHashes folding reads, and the store.
 * The first pass's per-id arrays and the iteration of every document are given only while no
 * update has straddled the view — the first pass reads them before the query's first wait.
 */
import type { Source } from '../ingest/source.ts';
import { fieldNorms, idf, impactFunction, type ImpactFunction } from './bm25f.ts';
import type { CorpusStatistics } from './corpus-statistics.ts';
import type { TermDictionary } from './dictionary.ts';
import type { ById, DocumentVectors } from './document-vectors.ts';
import type { SourceDictionary } from './source-dictionary.ts';
import { indexOf, type DocVector } from './vector.ts';

/** What query code reads of this index's own documents (never the corpus's: a shard's are its own). */
export interface IndexedDocuments {
  /** The vector of a document, if indexed. */
  vector(docId: number): DocVector | undefined;
  /** True when the document contains the term (in any field). */
  contains(docId: number, termId: number): boolean;
  /** The source id of an indexed document (-1: not indexed). */
  sourceOf(docId: number): number;
  /** A source by its id (ingest/source.ts). */
  source(id: number): Source;
  /** True while no update has straddled the view: `byId` and `documentIds` may be read. */
  readonly fresh: boolean;
}

/**
 * What the first pass and the facets read of this index as the query started, besides its
 * documents: its own term ids and how many of its documents hold a term — what reading its
 * postings costs, never what a term weighs (that is the corpus's: CorpusStatistics) — and the
 * per-id arrays and the iteration of every document (both only while the view is fresh).
 */
export interface OwnIndex extends IndexedDocuments {
  /** This index's id of the term (undefined: no document here ever held it, as the query started). */
  ownTermId(term: string): number | undefined;
  ownTerm(termId: number): string;
  /** How many of this index's documents hold the term: its postings' length. */
  holding(term: string): number;
  holdingOf(termId: number): number;
  /** True when every indexed document has a dense id. */
  readonly allDense: boolean;
  /** Sources in the source dictionary. */
  readonly sourceCount: number;
  byId(): ById;
  documentIds(): IterableIterator<number>;
}

/** What a view reads of the index (IndexContents' parts) and how it says it is closed. */
export type ViewedParts = {
  readonly dictionary: TermDictionary;
  readonly vectors: DocumentVectors;
  readonly sources: SourceDictionary;
  readonly documentCount: number;
  readonly lengthSums: Float64Array;
  readonly closed: (view: IndexView) => void;
};

export class IndexView implements CorpusStatistics, OwnIndex {
  readonly documentCount: number;
  private readonly termCount: number;
  private readonly lengthSums: Float64Array;
  private readonly dictionary: TermDictionary;
  private readonly vectors: DocumentVectors;
  private readonly sources: SourceDictionary;
  private readonly closed: (view: IndexView) => void;
  private impact: ImpactFunction | undefined;
  /** What updates since the view opened changed, as it was before them (empty while none has). */
  private readonly dfBefore = new Map<number, number>();
  private readonly vectorBefore = new Map<number, DocVector | undefined>();
  private straddled = false;

  constructor(parts: ViewedParts) {
    this.dictionary = parts.dictionary;
    this.vectors = parts.vectors;
    this.sources = parts.sources;
    this.closed = parts.closed;
    this.documentCount = parts.documentCount;
    this.lengthSums = parts.lengthSums;
    this.termCount = parts.dictionary.termCount;
  }

  get fresh(): boolean {
    return !this.straddled;
  }

  termId(term: string): number | undefined {
    const id = this.dictionary.termId(term);
    return id !== undefined && id < this.termCount ? id : undefined;
  }

  term(termId: number): string {
    return this.dictionary.term(termId);
  }

  docFrequencyOf(termId: number): number {
    if (this.straddled) {
      const before = this.dfBefore.get(termId);
      if (before !== undefined) return before;
      if (termId >= this.termCount) return 0;
    }
    return this.dictionary.docFrequencyOf(termId);
  }

  docFrequency(term: string): number {
    const id = this.termId(term);
    return id === undefined ? 0 : this.docFrequencyOf(id);
  }

  idf(termId: number): number {
    return idf(this.docFrequencyOf(termId), this.documentCount);
  }

  ownTermId(term: string): number | undefined {
    return this.termId(term);
  }

  ownTerm(termId: number): string {
    return this.term(termId);
  }

  holding(term: string): number {
    return this.docFrequency(term);
  }

  holdingOf(termId: number): number {
    return this.docFrequencyOf(termId);
  }

  /** Made once per view, with the norms of the view's start. */
  impactFunction(): ImpactFunction {
    this.impact ??= impactFunction(fieldNorms(this.lengthSums, this.documentCount));
    return this.impact;
  }

  /** Each field's length summed over the documents, as the view opened (a shard reports them). */
  fieldLengths(): number[] {
    return Array.from(this.lengthSums);
  }

  vector(docId: number): DocVector | undefined {
    if (this.straddled && this.vectorBefore.has(docId)) return this.vectorBefore.get(docId);
    return this.vectors.get(docId);
  }

  contains(docId: number, termId: number): boolean {
    const v = this.vector(docId);
    return v !== undefined && indexOf(v.termIds, termId) >= 0;
  }

  sourceOf(docId: number): number {
    if (this.straddled && this.vectorBefore.has(docId)) return this.vectorBefore.get(docId)?.source ?? -1;
    return this.vectors.sourceOf(docId);
  }

  source(id: number): Source {
    return this.sources.source(id);
  }

  /** Sources in the source dictionary (it only grows: those since the view opened are no document's in it). */
  get sourceCount(): number {
    return this.sources.sourceCount;
  }

  /** True when every indexed document has a dense id (read before the first wait, as `byId`). */
  get allDense(): boolean {
    return this.vectors.allDense;
  }

  /** The per-id arrays (document-vectors.ts), for the first pass: only while the view is fresh. */
  byId(): ById {
    this.mustBeFresh('byId');
    return this.vectors.byId();
  }

  /** Every indexed document id: only while the view is fresh. */
  documentIds(): IterableIterator<number> {
    this.mustBeFresh('documentIds');
    return this.vectors.ids();
  }

  /**
   * Told by IndexContents right before it changes document `docId` (its vector `old`, undefined
   * when new, becomes one holding `termIds`): keeps what the view must go on reading.
   */
  changing(docId: number, old: DocVector | undefined, termIds: Uint32Array | undefined): void {
    this.straddled = true;
    if (!this.vectorBefore.has(docId)) this.vectorBefore.set(docId, old);
    if (old) this.keepFrequencies(old.termIds);
    if (termIds) this.keepFrequencies(termIds);
  }

  /** The query is over: the view is told of no more updates (what it reads from now on may have moved). */
  close(): void {
    this.closed(this);
  }

  private keepFrequencies(termIds: Uint32Array): void {
    for (const id of termIds) if (id < this.termCount && !this.dfBefore.has(id)) this.dfBefore.set(id, this.dictionary.docFrequencyOf(id));
  }

  private mustBeFresh(what: string): void {
    // (A programming error, not a state of the index: the first pass runs before the query's first wait.)
    if (this.straddled) throw new Error(`IndexView.${what} read after an update straddled the query`);
  }
}
