/**
 * Term statistics kept beside FlexSearch, which has no relevance score of its own: a term
 * dictionary with document frequencies, and per document a compact vector (sorted term ids,
 * per-field term frequencies, per-field lengths). Updated incrementally on every add and remove;
 * BM25F is computed from it.
 */
import type { Analysis } from '../ingest/analyze.ts';
import { NO_SOURCE, type Source } from '../ingest/source.ts';
export type { Source } from '../ingest/source.ts';
import { FIELD_MATCH, FIELDS, FIELD_B, FIELD_WEIGHT, K1, LINK_PRIOR, TITLE_BONUS } from '../ingest/fields.ts';

const F = FIELDS.length;
const TITLE = FIELDS.indexOf('title');
/** Document ids below this are also kept in an array (ids are URL record ids: dense, from 1). */
const DENSE_IDS = 50_000_000;
/** Above analyze()'s MAX_DISTINCT_TERMS rows per document. */
const ROW_SPACE = 2 ** 21;
/** A stored term frequency saturates here: one byte per field and term. */
export const MAX_TF = 255;

export type DocVector = {
  /** Sorted ascending: binary-searched when scoring. */
  readonly termIds: Uint32Array;
  /** termIds.length × F term frequencies, row-major by term, at most 255 (BM25 has long saturated by then). */
  readonly tf: Uint8Array;
  /** Token count per field. */
  readonly lengths: Uint32Array;
  /** Pages linking to this one (the link prior). */
  readonly inlinks: number;
  /** Where the page is from: its host, language and type, as an index into the source dictionary (for filters and facets). */
  readonly source: number;
};


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
    const vector = { termIds, tf, lengths: analysis.lengths, inlinks: meta.inlinks, source: this.internSource(meta.source) };
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
      counts.set(id, Math.min(MAX_TF, (counts.get(id) ?? 0) + 1));
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
    const tf = new Uint8Array(order.length * F);
    order.forEach((from, to) => {
      for (let f = 0; f < F; f++) tf[to * F + f] = rows[from * F + f]!;
    });
    const lengths = Uint32Array.from(v.lengths);
    lengths[field] = tokens.length;
    this.insert(docId, { termIds, tf, lengths, inlinks, source: v.source });
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
    return v.tf[row * F + TITLE] !== 0;
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
    for (const id of vector.termIds) this.df[id]!++;
    for (let f = 0; f < F; f++) this.lengthSum[f]! += vector.lengths[f]!;
  }

  remove(docId: number): boolean {
    const v = this.docs.get(docId);
    if (!v) return false;
    for (const id of v.termIds) this.df[id]!--;
    for (let f = 0; f < F; f++) this.lengthSum[f]! -= v.lengths[f]!;
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
    const df = this.df[termId] ?? 0;
    return Math.log(1 + (this.docs.size - df + 0.5) / (df + 0.5));
  }

  /**
   * What a term adds to a document's score before it is multiplied by the term's IDF, apart from
   * the title bonus (which depends on the whole query): its BM25F and per-field parts. `row` is
   * the term's index in the vector. With these, whether the term is in the title, the title's
   * length and the link prior, a query's score is computed as `scorer` does — from lists read in
   * sequence instead of vectors all over the heap (impacts.ts). Length norms are today's: the
   * function is made once and used for many rows.
   */
  impactFunction(): (v: DocVector, row: number) => number {
    const { base, slope, weight } = this.norms();
    // (Constants copied into locals: an imported binding may be read through a getter.)
    const k1 = K1;
    const fieldMatch = FIELD_MATCH;
    return (v, row) => {
      const { tf, lengths } = v;
      let pseudo = 0;
      let perField = 0;
      const at = row * F;
      for (let f = 0; f < F; f++) {
        const t = tf[at + f]!;
        if (t === 0) continue;
        const norm = base[f]! + slope[f]! * lengths[f]!;
        const wt = weight[f]! * t;
        pseudo += wt / norm;
        perField += (wt * (k1 + 1)) / (t + k1 * norm);
      }
      return pseudo / (k1 + pseudo) + fieldMatch * perField;
    };
  }

  /** The title bonus (see `scorer`): `inTitle` of the query's `q` terms are in a title of `titleLength` tokens. */
  static titleBonus(idfSum: number, inTitle: number, q: number, titleLength: number): number {
    return inTitle ? TITLE_BONUS * idfSum * (inTitle / q) * Math.min(1, inTitle / titleLength) : 0;
  }

  /** Per field: norm = 1 − b + b · length / average length = base + slope · length; and its weight. */
  private norms(): { base: Float64Array; slope: Float64Array; weight: Float64Array } {
    const n = this.docs.size;
    const base = new Float64Array(F);
    const slope = new Float64Array(F);
    const weight = new Float64Array(F);
    FIELDS.forEach((field, f) => {
      base[f] = 1 - FIELD_B[field];
      slope[f] = FIELD_B[field] / (this.lengthSum[f]! / n || 1);
      weight[f] = FIELD_WEIGHT[field];
    });
    return { base, slope, weight };
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
   * not once per candidate. A term's part is `impactFunction`'s, the same the impact lists hold.
   */
  private scorer(termIds: readonly number[]): (v: DocVector) => number {
    const q = termIds.length;
    const idf = termIds.map((id) => this.idf(id));
    const idfSum = idf.reduce((a, b) => a + b, 0);
    const impact = this.impactFunction();
    const ids = Uint32Array.from(termIds);
    return (v) => {
      let score = 0;
      let inTitle = 0;
      for (let k = 0; k < q; k++) {
        const row = indexOf(v.termIds, ids[k]!);
        if (row < 0) continue;
        if (TermStats.inTitle(v, row)) inTitle++;
        score += idf[k]! * impact(v, row);
      }
      score += TermStats.titleBonus(idfSum, inTitle, q, v.lengths[TITLE]!);
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

function isDense(docId: number): boolean {
  return docId >= 0 && docId < DENSE_IDS && Number.isInteger(docId);
}

/** The index of `x` in a sorted array, or -1. */
export function indexOf(sorted: Uint32Array, x: number): number {
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
