/**
 * Each field's length summed over the indexed documents: with the document count, what BM25F's
 * length norms are made of (bm25f.ts `fieldNorms`). Written by IndexContents as documents come
 * and go; a query's view copies the sums when it opens (index-view.ts), and a shard reports them
 * (the corpus's norms are the shards' sums: shards/record.ts).
 */
import { FIELDS } from '../ingest/fields.ts';
import { fieldNorms, type FieldNorms } from './bm25f.ts';

const F = FIELDS.length;

export class FieldLengths {
  private readonly sums = new Float64Array(F);

  /** A document's field lengths counted in. */
  add(lengths: Uint32Array): void {
    for (let f = 0; f < F; f++) this.sums[f]! += lengths[f]!;
  }

  /** A document's field lengths counted out. */
  remove(lengths: Uint32Array): void {
    for (let f = 0; f < F; f++) this.sums[f]! -= lengths[f]!;
  }

  /** The sums as they are now, copied (FIELDS order). */
  copy(): Float64Array {
    return this.sums.slice();
  }

  /** The norms of `documents` documents with these sums. */
  norms(documents: number): FieldNorms {
    return fieldNorms(this.sums, documents);
  }
}
