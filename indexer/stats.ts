/**
 * Term statistics kept beside FlexSearch, which has no relevance score of its own: a term
 * dictionary with document frequencies, and per document a compact vector (sorted term ids,
 * per-field term frequencies, per-field lengths). Updated incrementally on every add and remove;
 * BM25F is computed from it.
 */
import type { Analysis } from './analyze.ts';
import { FIELDS, FIELD_B, FIELD_WEIGHT, K1 } from './fields.ts';

const F = FIELDS.length;
/** Above analyze()'s MAX_DISTINCT_TERMS rows per document. */
const ROW_SPACE = 2 ** 21;

export type DocVector = {
  /** Sorted ascending: binary-searched when scoring. */
  readonly termIds: Uint32Array;
  /** termIds.length × F term frequencies, row-major by term. */
  readonly tf: Uint16Array;
  /** Token count per field. */
  readonly lengths: Uint32Array;
};

export class TermStats {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  private df: Int32Array = new Int32Array(1024);
  private readonly docs = new Map<number, DocVector>();
  private readonly lengthSum = new Float64Array(F);

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

  docFrequency(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? 0 : this.df[id]!;
  }

  /**
   * Records a document from its analysis (distinct terms with per-field frequencies): only the
   * distinct terms are interned, then the rows are put in term-id order for binary search.
   */
  add(docId: number, analysis: Analysis): DocVector {
    const n = analysis.terms.length;
    // Sort (term id, row) pairs packed into doubles — id × 2^21 + row is exact below 2^53 — with
    // the native numeric sort of a typed array: no comparator calls, no boxed indexes.
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = this.intern(analysis.terms[i]!) * ROW_SPACE + i;
    if (n < ROW_SPACE) keys.sort();
    else throw new RangeError(`a document with ${n} distinct terms (at most ${ROW_SPACE - 1})`);
    const termIds = new Uint32Array(n);
    const tf = new Uint16Array(n * F);
    const src = analysis.tf;
    for (let to = 0; to < n; to++) {
      const key = keys[to]!;
      const from = key % ROW_SPACE;
      termIds[to] = (key - from) / ROW_SPACE;
      for (let f = 0; f < F; f++) tf[to * F + f] = src[from * F + f]!;
    }
    const vector = { termIds, tf, lengths: analysis.lengths };
    this.insert(docId, vector);
    return vector;
  }

  /** Records a vector as is (used when loading a flushed index). */
  insert(docId: number, vector: DocVector): void {
    this.remove(docId);
    this.docs.set(docId, vector);
    for (const id of vector.termIds) this.df[id]!++;
    for (let f = 0; f < F; f++) this.lengthSum[f]! += vector.lengths[f]!;
  }

  remove(docId: number): boolean {
    const v = this.docs.get(docId);
    if (!v) return false;
    for (const id of v.termIds) this.df[id]!--;
    for (let f = 0; f < F; f++) this.lengthSum[f]! -= v.lengths[f]!;
    this.docs.delete(docId);
    return true;
  }

  /** True when the document contains the term (in any field). */
  contains(docId: number, termId: number): boolean {
    const v = this.docs.get(docId);
    return v !== undefined && indexOf(v.termIds, termId) >= 0;
  }

  /**
   * BM25F: per term, field frequencies are length-normalized and weighted into one pseudo-frequency,
   * saturated once with k1, and multiplied by the term's IDF.
   */
  score(docId: number, termIds: readonly number[]): number {
    const v = this.docs.get(docId);
    if (!v) return 0;
    const n = this.docs.size;
    let score = 0;
    for (const id of termIds) {
      const i = indexOf(v.termIds, id);
      if (i < 0) continue;
      let pseudo = 0;
      for (let f = 0; f < F; f++) {
        const tf = v.tf[i * F + f]!;
        if (!tf) continue;
        const field = FIELDS[f]!;
        const avg = this.lengthSum[f]! / n || 1;
        const norm = 1 - FIELD_B[field] + FIELD_B[field] * (v.lengths[f]! / avg);
        pseudo += (FIELD_WEIGHT[field] * tf) / norm;
      }
      const df = this.df[id]!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * pseudo) / (K1 + pseudo);
    }
    return score;
  }

  /** Every term and document vector, for a flush. */
  snapshot(): { terms: readonly string[]; docs: ReadonlyMap<number, DocVector> } {
    return { terms: this.terms, docs: this.docs };
  }

  /** Restores the dictionary of a flushed index (before its vectors are inserted). */
  restoreTerms(terms: readonly string[]): void {
    for (const t of terms) this.intern(t);
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

function indexOf(sorted: Uint32Array, x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === x) return mid;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
