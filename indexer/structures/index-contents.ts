/**
 * What the index knows of its documents, in four parts kept in step as documents are added,
 * replaced and removed: the term dictionary with document frequencies (dictionary.ts), the
 * fields' length sums (field-lengths.ts), the document vectors with their per-id arrays
 * (document-vectors.ts, vector.ts) and the source dictionary (source-dictionary.ts). BM25F
 * (bm25f.ts) is computed over them. SearchIndex writes it (add, setField, remove; insert on load)
 * and keeps its postings, impact lists and vocabulary beside it; a query reads it through a view
 * opened when it starts (`view`, index-view.ts), which every update tells before it changes anything.
 */
import type { Analysis } from '../ingest/analyze.ts';
import { FIELDS } from '../ingest/fields.ts';
import { NO_SOURCE, type Source } from '../ingest/source.ts';
import { impactFunction, type ImpactFunction } from './bm25f.ts';
import { TermDictionary } from './dictionary.ts';
import { DocumentVectors } from './document-vectors.ts';
import { FieldLengths } from './field-lengths.ts';
import { IndexView } from './index-view.ts';
import { SourceDictionary } from './source-dictionary.ts';
import { packFreqs, unpackFreqs, type DocVector } from './vector.ts';

const F = FIELDS.length;
/** Above analyze()'s MAX_DISTINCT_TERMS rows per document. */
const ROW_SPACE = 2 ** 21;
/** A stored term frequency saturates here: one byte per field and term. */
export const MAX_TF = 255;

export class IndexContents {
  readonly dictionary = new TermDictionary();
  readonly fields = new FieldLengths();
  readonly vectors = new DocumentVectors();
  readonly sources = new SourceDictionary();
  /** The views of the queries running (each told of every update until it is closed). */
  private readonly views = new Set<IndexView>();

  get documentCount(): number {
    return this.vectors.size;
  }

  get termCount(): number {
    return this.dictionary.termCount;
  }

  /** True when the document is indexed. */
  has(docId: number): boolean {
    return this.vectors.has(docId);
  }

  /** A view of the index as it stands, for one query; the query closes it when it is over. */
  view(): IndexView {
    const view = new IndexView({
      dictionary: this.dictionary,
      vectors: this.vectors,
      sources: this.sources,
      documentCount: this.vectors.size,
      lengthSums: this.fields.copy(),
      closed: (v) => this.views.delete(v),
    });
    this.views.add(view);
    return view;
  }

  /** How many views are open (queries running). */
  get openViews(): number {
    return this.views.size;
  }

  /**
   * What a term adds to a document's score before its IDF with the norms as they stand — for the
   * impact lists, which store each entry's impact when it is added (a query reads its view's).
   */
  impactFunction(): ImpactFunction {
    return impactFunction(this.fields.norms(this.vectors.size));
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
    for (let i = 0; i < n; i++) keys[i] = this.dictionary.intern(analysis.terms[i]!) * ROW_SPACE + i;
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
    const vector = { termIds, freqs: packFreqs(tf, n), lengths: analysis.lengths, inlinks: meta.inlinks, source: this.sources.intern(meta.source) };
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
    const v = this.vectors.get(docId);
    if (!v) return { added: [], removed: [] };
    const counts = new Map<number, number>();
    for (const t of tokens) {
      const id = this.dictionary.intern(t);
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
        removed.push(this.dictionary.term(id));
      }
    }
    const added: string[] = [];
    for (const [id, tf] of counts) {
      ids.push(id);
      for (let f = 0; f < F; f++) rows.push(f === field ? tf : 0);
      added.push(this.dictionary.term(id));
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

  /** The document's distinct terms. */
  termsOf(docId: number): string[] {
    const v = this.vectors.get(docId);
    return v ? Array.from(v.termIds, (id) => this.dictionary.term(id)) : [];
  }

  /** Records a vector as is (used when loading a flushed index), in place of the document's old one. */
  insert(docId: number, vector: DocVector): void {
    if (this.views.size) for (const view of this.views) view.changing(docId, this.vectors.get(docId), vector.termIds);
    this.takeOut(docId);
    this.vectors.set(docId, vector);
    this.sources.count(vector.source, 1);
    this.dictionary.count(vector.termIds, 1);
    this.fields.add(vector.lengths);
  }

  remove(docId: number): boolean {
    if (this.views.size && this.vectors.has(docId)) for (const view of this.views) view.changing(docId, this.vectors.get(docId), undefined);
    return this.takeOut(docId);
  }

  /** Every term, source and document vector, for a flush (vectors are never changed in place, dictionaries only grow). */
  snapshot(): { terms: readonly string[]; sources: readonly Source[]; docs: ReadonlyMap<number, DocVector> } {
    return { terms: this.dictionary.all(), sources: this.sources.all(), docs: this.vectors.all() };
  }

  /** Restores the dictionaries of a flushed index (before its vectors are inserted). */
  restoreTerms(terms: readonly string[], sources: readonly Source[] = []): void {
    for (const t of terms) this.dictionary.intern(t);
    for (const s of sources) this.sources.intern(s);
  }

  /** A document's vector counted out of every part; false when it was not indexed. */
  private takeOut(docId: number): boolean {
    const v = this.vectors.get(docId);
    if (!v) return false;
    this.dictionary.count(v.termIds, -1);
    this.fields.remove(v.lengths);
    this.sources.count(v.source, -1);
    this.vectors.delete(docId);
    return true;
  }
}
