/**
 * Term statistics kept beside the postings, which have no relevance score of their own: a term
 * dictionary with document frequencies, and per document a compact vector (sorted term ids,
 * per-field term frequencies, per-field lengths: vector.ts). Updated incrementally on every add
 * and remove; BM25F (bm25f.ts) is computed from it.
 */
import type { Analysis } from '../ingest/analyze.ts';
import { NO_SOURCE, type Source } from '../ingest/source.ts';
export type { Source } from '../ingest/source.ts';
import { FIELDS } from '../ingest/fields.ts';
import { fieldNorms, idf, impactFunction, LINK_PRIOR, scorer, titleBonus } from './bm25f.ts';
import { indexOf, inTitle, packFreqs, unpackFreqs, type DocVector } from './vector.ts';

export { indexOf, type DocVector } from './vector.ts';

const F = FIELDS.length;
const TITLE = FIELDS.indexOf('title');
/** Document ids below this are also kept in an array (ids are URL record ids: dense, from 1). */
const DENSE_IDS = 50_000_000;
/** Above analyze()'s MAX_DISTINCT_TERMS rows per document. */
const ROW_SPACE = 2 ** 21;
/** A stored term frequency saturates here: one byte per field and term. */
export const MAX_TF = 255;

export class TermStats {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  private df: Int32Array = new Int32Array(1024);
  private readonly docs = new Map<number, DocVector>();
  private readonly lengthSum = new Float64Array(F);
  /** The same vectors by id in an array, for the per-candidate lookups of a query (ids are dense). */
  private readonly dense: (DocVector | undefined)[] = [];
  /** Distinct sources (few: most pages of a host share a language and a type), and their ids by key. */
  private readonly sourceIds = new Map<string, number>();
  private readonly sources: Source[] = [];
  /** Documents indexed under each source id (the status counts documents by type from them). */
  private readonly docsBySource: number[] = [];
  /**
   * Per dense document id, in typed arrays that a query can read for every candidate without
   * touching the vectors: the source (-1: not indexed), the link prior, and a version that changes
   * each time the document's vector is replaced (impacts.ts tells stale entries by it).
   */
  private sourceById = new Int32Array(0);
  private priorById = new Float32Array(0);
  private versionById = new Uint16Array(0);
  private titleLengthById = new Uint16Array(0);
  /** Indexed documents whose id is not dense (not in the arrays above). */
  private sparseCount = 0;

  get documentCount(): number {
    return this.docs.size;
  }

  get termCount(): number {
    return this.terms.length;
  }

  has(docId: number): boolean {
    return this.docs.has(docId);
  }

  termId(term: string): number | undefined {
    return this.ids.get(term);
  }

  docFrequencyOf(termId: number): number {
    return this.df[termId] ?? 0;
  }

  docFrequency(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? 0 : this.df[id]!;
  }

  /**
   * Records a document from its analysis (distinct terms with per-field frequencies): only the
   * distinct terms are interned, then the rows are put in term-id order for binary search.
   */
  add(docId: number, analysis: Analysis, meta: { readonly inlinks: number; readonly source: Source } = { inlinks: 0, source: NO_SOURCE }): DocVector {
    const n = analysis.terms.length;
    // Sort (term id, row) pairs packed into doubles — id × 2^21 + row is exact below 2^53 — with
    // the native numeric sort of a typed array: no comparator calls, no boxed indexes.
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = this.intern(analysis.terms[i]!) * ROW_SPACE + i;
    if (n < ROW_SPACE) keys.sort();
    else throw new RangeError(`a document with ${n} distinct terms (at most ${ROW_SPACE - 1})`);
    const termIds = new Uint32Array(n);
    const tf = new Uint8Array(n * F);
    const src = analysis.tf;
    for (let to = 0; to < n; to++) {
      const key = keys[to]!;
      const from = key % ROW_SPACE;
      termIds[to] = (key - from) / ROW_SPACE;
      for (let f = 0; f < F; f++) tf[to * F + f] = Math.min(MAX_TF, src[from * F + f]!);
    }
    const vector = { termIds, freqs: packFreqs(tf, n), lengths: analysis.lengths, inlinks: meta.inlinks, source: this.internSource(meta.source) };
    this.insert(docId, vector);
    return vector;
  }

  /**
   * Replaces one field of a stored document with `tokens` (anchor text that arrived after the page
   * was indexed) and sets its in-link count; the field is `length` tokens long (its identifiers
   * are not tokens: analyze.ts `fieldTerms`). Returns the terms the document did not hold before
   * and those it no longer holds, which the postings must learn.
   */
  setField(docId: number, field: number, tokens: readonly string[], inlinks: number, length = tokens.length): { added: string[]; removed: string[] } {
    const v = this.docs.get(docId);
    if (!v) return { added: [], removed: [] };
    const counts = new Map<number, number>();
    for (const t of tokens) {
      const id = this.intern(t);
      counts.set(id, Math.min(MAX_TF, (counts.get(id) ?? 0) + 1));
    }
    const ids: number[] = [];
    const rows: number[] = [];
    const removed: string[] = [];
    const full = unpackFreqs(v);
    for (let i = 0; i < v.termIds.length; i++) {
      const id = v.termIds[i]!;
      let any = false;
      for (let f = 0; f < F; f++) {
        const tf = f === field ? (counts.get(id) ?? 0) : full[i * F + f]!;
        rows.push(tf);
        if (tf) any = true;
      }
      counts.delete(id);
      if (any) ids.push(id);
      else {
        rows.length -= F;
        removed.push(this.terms[id]!);
      }
    }
    const added: string[] = [];
    for (const [id, tf] of counts) {
      ids.push(id);
      for (let f = 0; f < F; f++) rows.push(f === field ? tf : 0);
      added.push(this.terms[id]!);
    }
    // Back into term-id order (new terms were appended).
    const order = ids.map((_, i) => i).sort((a, b) => ids[a]! - ids[b]!);
    const termIds = Uint32Array.from(order, (i) => ids[i]!);
    const tf = new Uint8Array(order.length * F);
    order.forEach((from, to) => {
      for (let f = 0; f < F; f++) tf[to * F + f] = rows[from * F + f]!;
    });
    const lengths = Uint32Array.from(v.lengths);
    lengths[field] = length;
    this.insert(docId, { termIds, freqs: packFreqs(tf, order.length), lengths, inlinks, source: v.source });
    return { added, removed };
  }

  /** A term by its id. */
  term(termId: number): string {
    return this.terms[termId] ?? '';
  }

  /** The document's distinct terms. */
  termsOf(docId: number): string[] {
    const v = this.docs.get(docId);
    return v ? Array.from(v.termIds, (id) => this.terms[id]!) : [];
  }

  /** True when the term (its row in the vector) is in the document's title. */
  static inTitle(v: DocVector, row: number): boolean {
    return inTitle(v, row);
  }

  /** Records a vector as is (used when loading a flushed index). */
  insert(docId: number, vector: DocVector): void {
    this.remove(docId);
    this.docs.set(docId, vector);
    if (isDense(docId)) {
      this.dense[docId] = vector;
      this.growTo(docId);
      this.sourceById[docId] = vector.source;
      this.priorById[docId] = LINK_PRIOR * Math.log1p(vector.inlinks);
      this.versionById[docId] = (this.versionById[docId]! + 1) & 0xffff;
      this.titleLengthById[docId] = Math.min(0xffff, vector.lengths[TITLE]!);
    } else this.sparseCount++;
    this.docsBySource[vector.source] = (this.docsBySource[vector.source] ?? 0) + 1;
    for (const id of vector.termIds) this.df[id]!++;
    for (let f = 0; f < F; f++) this.lengthSum[f]! += vector.lengths[f]!;
  }

  remove(docId: number): boolean {
    const v = this.docs.get(docId);
    if (!v) return false;
    for (const id of v.termIds) this.df[id]!--;
    for (let f = 0; f < F; f++) this.lengthSum[f]! -= v.lengths[f]!;
    this.docsBySource[v.source]!--;
    this.docs.delete(docId);
    if (isDense(docId)) {
      this.dense[docId] = undefined;
      this.sourceById[docId] = -1;
    } else this.sparseCount--;
    return true;
  }

  /** True when every indexed document has a dense id (the per-id arrays cover them all). */
  get allDense(): boolean {
    return this.sparseCount === 0;
  }

  /**
   * The per-id arrays (see sourceById): read-only views for a query's inner loops. Ids at or past
   * their length are not indexed.
   */
  byId(): { readonly source: Int32Array; readonly prior: Float32Array; readonly version: Uint16Array; readonly titleLength: Uint16Array } {
    return { source: this.sourceById, prior: this.priorById, version: this.versionById, titleLength: this.titleLengthById };
  }

  /** The source id of an indexed document (-1: not indexed). */
  sourceOf(docId: number): number {
    if (isDense(docId)) return docId < this.sourceById.length ? this.sourceById[docId]! : -1;
    return this.docs.get(docId)?.source ?? -1;
  }

  /** True when the document contains the term (in any field). */
  contains(docId: number, termId: number): boolean {
    const v = this.get(docId);
    return v !== undefined && indexOf(v.termIds, termId) >= 0;
  }

  /** Scores of `ids` for the query (0 for one not indexed). */
  scoreAll(ids: ArrayLike<number>, termIds: readonly number[]): Float64Array {
    const score = this.scorer(termIds);
    const scores = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const v = this.get(ids[i]!);
      scores[i] = v ? score(v) : 0;
    }
    return scores;
  }

  /** A term's inverse document frequency, as BM25 weighs it. */
  idf(termId: number): number {
    return idf(this.df[termId] ?? 0, this.docs.size);
  }

  /** Each field's length summed over the documents (a shard reports them: the corpus's length norms are the shards' sums). */
  fieldLengths(): number[] {
    return Array.from(this.lengthSum);
  }

  /** What a term adds to a document's score before its IDF (bm25f.ts `impactFunction`), with today's length norms. */
  impactFunction(): (v: DocVector, row: number) => number {
    return impactFunction(fieldNorms(this.lengthSum, this.docs.size));
  }

  /** The title bonus (bm25f.ts). */
  static titleBonus(idfSum: number, inTitleCount: number, q: number, titleLength: number): number {
    return titleBonus(idfSum, inTitleCount, q, titleLength);
  }

  /** The query's scorer: BM25F over `termIds` (bm25f.ts). */
  private scorer(termIds: readonly number[]): (v: DocVector) => number {
    return scorer(
      termIds.map((id) => this.idf(id)),
      Uint32Array.from(termIds),
      this.impactFunction(),
    );
  }

  /** The vector of a document, if indexed. */
  vector(docId: number): DocVector | undefined {
    return this.get(docId);
  }

  /** Every indexed document id. */
  documentIds(): IterableIterator<number> {
    return this.docs.keys();
  }

  /** Documents indexed under source `id`. */
  documentsOfSource(id: number): number {
    return this.docsBySource[id] ?? 0;
  }

  /** Sources in the source dictionary (ids 0 … sourceCount − 1). */
  get sourceCount(): number {
    return this.sources.length;
  }

  source(id: number): Source {
    return this.sources[id] ?? NO_SOURCE;
  }

  /** Every term with its document frequency (for "did you mean"). */
  *dictionary(): IterableIterator<[string, number]> {
    for (let id = 0; id < this.terms.length; id++) if (this.df[id]! > 0) yield [this.terms[id]!, this.df[id]!];
  }

  /** Every term, source and document vector, for a flush. */
  snapshot(): { terms: readonly string[]; sources: readonly Source[]; docs: ReadonlyMap<number, DocVector> } {
    return { terms: this.terms, sources: this.sources, docs: this.docs };
  }

  /** Restores the dictionaries of a flushed index (before its vectors are inserted). */
  restoreTerms(terms: readonly string[], sources: readonly Source[] = []): void {
    for (const t of terms) this.intern(t);
    for (const s of sources) this.internSource(s);
  }

  /** The vector of a document: from the array for dense ids (the hot path of a query), else the map. */
  private get(docId: number): DocVector | undefined {
    return isDense(docId) ? this.dense[docId] : this.docs.get(docId);
  }

  /** Makes the per-id arrays cover `docId` (doubling, so that growing is rare). */
  private growTo(docId: number): void {
    if (docId < this.sourceById.length) return;
    const size = Math.min(DENSE_IDS, Math.max(1024, docId + 1, this.sourceById.length * 2));
    const source = new Int32Array(size).fill(-1);
    source.set(this.sourceById);
    const prior = new Float32Array(size);
    prior.set(this.priorById);
    const version = new Uint16Array(size);
    version.set(this.versionById);
    const titleLength = new Uint16Array(size);
    titleLength.set(this.titleLengthById);
    this.titleLengthById = titleLength;
    this.sourceById = source;
    this.priorById = prior;
    this.versionById = version;
  }

  private internSource(source: Source): number {
    // (An index flushed before topics existed has sources without them.)
    const topics = source.topics ?? '';
    const key = `${source.host}\n${source.lang}\n${source.type}\n${topics}`;
    let id = this.sourceIds.get(key);
    if (id === undefined) {
      id = this.sources.length;
      this.sources.push({ host: source.host, lang: source.lang, type: source.type, topics });
      this.sourceIds.set(key, id);
    }
    return id;
  }

  private intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.ids.set(term, id);
      if (id >= this.df.length) {
        const bigger = new Int32Array(this.df.length * 2);
        bigger.set(this.df);
        this.df = bigger;
      }
    }
    return id;
  }
}

/** Whether a document id is one the per-id arrays cover (a fixed property of the id). */
export function isDense(docId: number): boolean {
  return docId >= 0 && docId < DENSE_IDS && Number.isInteger(docId);
}
