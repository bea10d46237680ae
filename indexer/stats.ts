/**
 * Term statistics kept beside FlexSearch, which has no relevance score of its own: a term
 * dictionary with document frequencies, and per document a compact vector (sorted term ids,
 * per-field term frequencies, per-field lengths). Updated incrementally on every add and remove;
 * BM25F is computed from it.
 */
import type { Analysis } from './analyze.ts';
import { FIELD_MATCH, FIELDS, FIELD_B, FIELD_WEIGHT, K1, LINK_PRIOR, TITLE_BONUS } from './fields.ts';

const F = FIELDS.length;
const TITLE = FIELDS.indexOf('title');
/** Document ids below this are also kept in an array (ids are URL record ids: dense, from 1). */
const DENSE_IDS = 50_000_000;
/** Above analyze()'s MAX_DISTINCT_TERMS rows per document. */
const ROW_SPACE = 2 ** 21;

export type DocVector = {
  /** Sorted ascending: binary-searched when scoring. */
  readonly termIds: Uint32Array;
  /** termIds.length × F term frequencies, row-major by term. */
  readonly tf: Uint16Array;
  /** Token count per field. */
  readonly lengths: Uint32Array;
  /** Pages linking to this one (the link prior). */
  readonly inlinks: number;
  /** The page's host, as an index into the host dictionary (for site: and facets). */
  readonly host: number;
};

export class TermStats {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  private df: Int32Array = new Int32Array(1024);
  private readonly docs = new Map<number, DocVector>();
  private readonly lengthSum = new Float64Array(F);
  /** The same vectors by id in an array, for the per-candidate lookups of a query (ids are dense). */
  private readonly dense: (DocVector | undefined)[] = [];
  private readonly hostIds = new Map<string, number>();
  private readonly hostNames: string[] = [];

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
  add(docId: number, analysis: Analysis, meta: { readonly inlinks: number; readonly host: string } = { inlinks: 0, host: '' }): DocVector {
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
    const vector = { termIds, tf, lengths: analysis.lengths, inlinks: meta.inlinks, host: this.internHost(meta.host) };
    this.insert(docId, vector);
    return vector;
  }

  /**
   * Replaces one field of a stored document with `tokens` (anchor text that arrived after the page
   * was indexed) and sets its in-link count. Returns the terms the document did not hold before
   * and those it no longer holds, which the postings must learn.
   */
  setField(docId: number, field: number, tokens: readonly string[], inlinks: number): { added: string[]; removed: string[] } {
    const v = this.docs.get(docId);
    if (!v) return { added: [], removed: [] };
    const counts = new Map<number, number>();
    for (const t of tokens) {
      const id = this.intern(t);
      counts.set(id, Math.min(65535, (counts.get(id) ?? 0) + 1));
    }
    const ids: number[] = [];
    const rows: number[] = [];
    const removed: string[] = [];
    for (let i = 0; i < v.termIds.length; i++) {
      const id = v.termIds[i]!;
      let any = false;
      for (let f = 0; f < F; f++) {
        const tf = f === field ? (counts.get(id) ?? 0) : v.tf[i * F + f]!;
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
    const tf = new Uint16Array(order.length * F);
    order.forEach((from, to) => {
      for (let f = 0; f < F; f++) tf[to * F + f] = rows[from * F + f]!;
    });
    const lengths = Uint32Array.from(v.lengths);
    lengths[field] = tokens.length;
    this.insert(docId, { termIds, tf, lengths, inlinks, host: v.host });
    return { added, removed };
  }

  /** The document's distinct terms. */
  termsOf(docId: number): string[] {
    const v = this.docs.get(docId);
    return v ? Array.from(v.termIds, (id) => this.terms[id]!) : [];
  }

  /** Records a vector as is (used when loading a flushed index). */
  insert(docId: number, vector: DocVector): void {
    this.remove(docId);
    this.docs.set(docId, vector);
    if (docId >= 0 && docId < DENSE_IDS) this.dense[docId] = vector;
    for (const id of vector.termIds) this.df[id]!++;
    for (let f = 0; f < F; f++) this.lengthSum[f]! += vector.lengths[f]!;
  }

  remove(docId: number): boolean {
    const v = this.docs.get(docId);
    if (!v) return false;
    for (const id of v.termIds) this.df[id]!--;
    for (let f = 0; f < F; f++) this.lengthSum[f]! -= v.lengths[f]!;
    this.docs.delete(docId);
    if (docId >= 0 && docId < DENSE_IDS) this.dense[docId] = undefined;
    return true;
  }

  /** True when the document contains the term (in any field). */
  contains(docId: number, termId: number): boolean {
    const v = this.get(docId);
    return v !== undefined && indexOf(v.termIds, termId) >= 0;
  }

  /** Scores of `ids` for the query, and each one's host (-1: not indexed), in one pass. */
  scoreAll(ids: readonly number[], termIds: readonly number[]): { scores: Float64Array; hosts: Int32Array } {
    const score = this.scorer(termIds);
    const scores = new Float64Array(ids.length);
    const hosts = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const v = this.get(ids[i]!);
      hosts[i] = v ? v.host : -1;
      scores[i] = v ? score(v) : 0;
    }
    return { scores, hosts };
  }

  /**
   * BM25F: per term, field frequencies are length-normalized and weighted into one pseudo-frequency,
   * saturated once with k1, and multiplied by the term's IDF. Saturating all fields together means
   * a term in the title adds almost nothing to the same term all over the body, so a small
   * per-field part (each field saturated on its own and weighted, as Lucene's multi-field queries
   * and MiniSearch score) gives credit for every field a term is found in. Plus a title bonus: BM25 saturates a
   * title match as fast as a body match, so a page titled exactly what was asked ("CREATE TABLE")
   * ranks no higher than pages that mention those words in a longer title ("CREATE TABLE AS") or
   * all over. The bonus is the query's IDF mass times how much of the query the title holds and
   * how much of the title the query holds.
   *
   * What depends only on the query (IDFs, length normalization, weights) is computed once here,
   * not once per candidate.
   */
  private scorer(termIds: readonly number[]): (v: DocVector) => number {
    const n = this.docs.size;
    const q = termIds.length;
    const idf = termIds.map((id) => {
      const df = this.df[id]!;
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    });
    const idfSum = idf.reduce((a, b) => a + b, 0);
    // Per field: norm = 1 − b + b · length / average length = base + slope · length.
    const base = new Float64Array(F);
    const slope = new Float64Array(F);
    const weight = new Float64Array(F);
    FIELDS.forEach((field, f) => {
      base[f] = 1 - FIELD_B[field];
      slope[f] = FIELD_B[field] / (this.lengthSum[f]! / n || 1);
      weight[f] = FIELD_WEIGHT[field];
    });
    const ids = Uint32Array.from(termIds);
    return (v) => {
      const { tf, lengths } = v;
      let score = 0;
      let inTitle = 0;
      for (let k = 0; k < q; k++) {
        const i = indexOf(v.termIds, ids[k]!);
        if (i < 0) continue;
        let pseudo = 0;
        let perField = 0;
        const row = i * F;
        for (let f = 0; f < F; f++) {
          const t = tf[row + f]!;
          if (t === 0) continue;
          const norm = base[f]! + slope[f]! * lengths[f]!;
          const wt = weight[f]! * t;
          pseudo += wt / norm;
          perField += (wt * (K1 + 1)) / (t + K1 * norm);
        }
        if (tf[row + TITLE]) inTitle++;
        score += idf[k]! * (pseudo / (K1 + pseudo) + FIELD_MATCH * perField);
      }
      if (inTitle) score += TITLE_BONUS * idfSum * (inTitle / q) * Math.min(1, inTitle / v.lengths[TITLE]!);
      // Link evidence: a page many pages link to is more often the one meant.
      return score + LINK_PRIOR * Math.log1p(v.inlinks);
    };
  }

  /** The vector of a document, if indexed. */
  vector(docId: number): DocVector | undefined {
    return this.get(docId);
  }

  /** Every indexed document id. */
  documentIds(): IterableIterator<number> {
    return this.docs.keys();
  }

  hostName(id: number): string {
    return this.hostNames[id] ?? '';
  }

  /** Every term with its document frequency (for "did you mean"). */
  *dictionary(): IterableIterator<[string, number]> {
    for (let id = 0; id < this.terms.length; id++) if (this.df[id]! > 0) yield [this.terms[id]!, this.df[id]!];
  }

  /** Every term, host and document vector, for a flush. */
  snapshot(): { terms: readonly string[]; hosts: readonly string[]; docs: ReadonlyMap<number, DocVector> } {
    return { terms: this.terms, hosts: this.hostNames, docs: this.docs };
  }

  /** Restores the dictionaries of a flushed index (before its vectors are inserted). */
  restoreTerms(terms: readonly string[], hosts: readonly string[] = []): void {
    for (const t of terms) this.intern(t);
    for (const h of hosts) this.internHost(h);
  }

  /** The vector of a document: from the array for dense ids (the hot path of a query), else the map. */
  private get(docId: number): DocVector | undefined {
    return docId >= 0 && docId < DENSE_IDS ? this.dense[docId] : this.docs.get(docId);
  }

  private internHost(host: string): number {
    let id = this.hostIds.get(host);
    if (id === undefined) {
      id = this.hostNames.length;
      this.hostNames.push(host);
      this.hostIds.set(host, id);
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
