/**
 * The indexed documents' vectors (vector.ts: sorted term ids, per-field frequencies and lengths,
 * in-link count, source), by document id — and, for dense ids, the same vectors in an array and a
 * few figures of each in typed arrays, so that a query's first pass reads them for every
 * candidate without touching a vector: its source (-1: not indexed), its link prior, its title's
 * length, and a version that changes each time its vector is replaced (impacts.ts tells stale
 * entries by it). Written by IndexContents; read by the impact lists and postings as it stands,
 * and by a query through its view (index-view.ts). A vector is never changed once stored: a
 * change stores a new one, so a reference to the old one is a snapshot of it.
 */
import { LINK_PRIOR } from './bm25f.ts';
import { FIELDS } from '../ingest/fields.ts';
import { indexOf, type DocVector } from './vector.ts';

const TITLE = FIELDS.indexOf('title');
/** Document ids below this are also kept in an array (ids are URL record ids: dense, from 1). */
const DENSE_IDS = 50_000_000;

/** Whether a document id is one the per-id arrays cover (a fixed property of the id). */
export function isDense(docId: number): boolean {
  return docId >= 0 && docId < DENSE_IDS && Number.isInteger(docId);
}

/** The per-id arrays, read-only views for a query's inner loops. Ids at or past their length are not indexed. */
export type ById = { readonly source: Int32Array; readonly prior: Float32Array; readonly version: Uint16Array; readonly titleLength: Uint16Array };

export class DocumentVectors {
  private readonly docs = new Map<number, DocVector>();
  /** The same vectors by id in an array, for the per-candidate lookups of a query (ids are dense). */
  private readonly dense: (DocVector | undefined)[] = [];
  private sourceById = new Int32Array(0);
  private priorById = new Float32Array(0);
  private versionById = new Uint16Array(0);
  private titleLengthById = new Uint16Array(0);
  /** Indexed documents whose id is not dense (not in the arrays above). */
  private sparseCount = 0;

  get size(): number {
    return this.docs.size;
  }

  has(docId: number): boolean {
    return this.docs.has(docId);
  }

  /** The vector of a document, if indexed: from the array for dense ids (the hot path of a query), else the map. */
  get(docId: number): DocVector | undefined {
    return isDense(docId) ? this.dense[docId] : this.docs.get(docId);
  }

  /** True when the document contains the term (in any field). */
  contains(docId: number, termId: number): boolean {
    const v = this.get(docId);
    return v !== undefined && indexOf(v.termIds, termId) >= 0;
  }

  /** Every indexed document id. */
  ids(): IterableIterator<number> {
    return this.docs.keys();
  }

  /** Every vector by id, as it stands (for a flush, and the postings rebuilt on load). */
  all(): ReadonlyMap<number, DocVector> {
    return this.docs;
  }

  /** True when every indexed document has a dense id (the per-id arrays cover them all). */
  get allDense(): boolean {
    return this.sparseCount === 0;
  }

  byId(): ById {
    return { source: this.sourceById, prior: this.priorById, version: this.versionById, titleLength: this.titleLengthById };
  }

  /** The source id of an indexed document (-1: not indexed). */
  sourceOf(docId: number): number {
    if (isDense(docId)) return docId < this.sourceById.length ? this.sourceById[docId]! : -1;
    return this.docs.get(docId)?.source ?? -1;
  }

  /** Stores the vector of a document that has none (IndexContents takes the old one out first). */
  set(docId: number, vector: DocVector): void {
    this.docs.set(docId, vector);
    if (isDense(docId)) {
      this.dense[docId] = vector;
      this.growTo(docId);
      this.sourceById[docId] = vector.source;
      this.priorById[docId] = LINK_PRIOR * Math.log1p(vector.inlinks);
      this.versionById[docId] = (this.versionById[docId]! + 1) & 0xffff;
      this.titleLengthById[docId] = Math.min(0xffff, vector.lengths[TITLE]!);
    } else this.sparseCount++;
  }

  /** Takes a document's vector out; returns it (undefined: it was not indexed). */
  delete(docId: number): DocVector | undefined {
    const v = this.docs.get(docId);
    if (!v) return undefined;
    this.docs.delete(docId);
    if (isDense(docId)) {
      this.dense[docId] = undefined;
      this.sourceById[docId] = -1;
    } else this.sparseCount--;
    return v;
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
}
