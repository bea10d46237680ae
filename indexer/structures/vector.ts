/**
 * A document as the index keeps it: a compact vector of its distinct terms (sorted ids), their
 * frequency in each field, and the fields' lengths — what scoring reads.
 */
import { FIELDS } from '../ingest/fields.ts';

const F = FIELDS.length;
const TITLE = FIELDS.indexOf('title');

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

/** True when the term (its row in the vector) is in the document's title. */
export function inTitle(v: DocVector, row: number): boolean {
  return v.tf[row * F + TITLE] !== 0;
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
