/**
 * A document as the index keeps it: a compact vector of its distinct terms (sorted ids), their
 * frequency in each field, and the fields' lengths — what scoring reads.
 *
 * Frequencies are packed (`freqs`): most of a page's terms are in its body only, so a row costs one
 * byte (its body frequency), and only the rows also in another field — title, headings,
 * description, URL, anchor text: a few dozen — have a record of 8 bytes after them: the row in 3
 * bytes, then its frequencies in those 5 fields. A full row-major table (6 bytes a term) was 1.8 of
 * the 4 KB a document took at 100,000 documents (bench/index-memory.ts).
 */
import { FIELDS } from '../ingest/fields.ts';

const F = FIELDS.length;
const TITLE = FIELDS.indexOf('title');
const BODY = FIELDS.indexOf('body');
/** A record: the row (3 bytes, little-endian), then the fields before the body. */
const RECORD = 8;
if (BODY !== F - 1 || F - 1 + 3 !== RECORD) throw new Error('vector.ts packs 5 fields before the body: FIELDS changed');

export type DocVector = {
  /** Sorted ascending: binary-searched when scoring. */
  readonly termIds: Uint32Array;
  /** termIds.length body frequencies, then a record per row in another field (ascending rows); frequencies at most 255. */
  readonly freqs: Uint8Array;
  /** Token count per field. */
  readonly lengths: Uint32Array;
  /** Pages linking to this one (the link prior). */
  readonly inlinks: number;
  /** Where the page is from: its host, language and type, as an index into the source dictionary (for filters and facets). */
  readonly source: number;
};

/** Packs a full row-major table (`rows` × F frequencies, each at most 255). */
export function packFreqs(full: ArrayLike<number>, rows: number): Uint8Array {
  let others = 0;
  for (let r = 0; r < rows; r++) if (inOther(full, r)) others++;
  const out = new Uint8Array(rows + others * RECORD);
  let at = rows;
  for (let r = 0; r < rows; r++) {
    out[r] = full[r * F + BODY]!;
    if (!inOther(full, r)) continue;
    out[at] = r & 0xff;
    out[at + 1] = (r >>> 8) & 0xff;
    out[at + 2] = r >>> 16;
    for (let f = 0; f < BODY; f++) out[at + 3 + f] = full[r * F + f]!;
    at += RECORD;
  }
  return out;
}

function inOther(full: ArrayLike<number>, r: number): boolean {
  for (let f = 0; f < BODY; f++) if (full[r * F + f]) return true;
  return false;
}

/** The full row-major table again (rows × F). */
export function unpackFreqs(v: DocVector): Uint8Array {
  const rows = v.termIds.length;
  const full = new Uint8Array(rows * F);
  for (let r = 0; r < rows; r++) full[r * F + BODY] = v.freqs[r]!;
  for (let at = rows; at < v.freqs.length; at += RECORD) {
    const r = recordRow(v.freqs, at);
    for (let f = 0; f < BODY; f++) full[r * F + f] = v.freqs[at + 3 + f]!;
  }
  return full;
}

function recordRow(freqs: Uint8Array, at: number): number {
  return freqs[at]! | (freqs[at + 1]! << 8) | (freqs[at + 2]! << 16);
}

/** Where the record of `row` starts in `freqs`, or -1 when the row is in the body only. */
export function recordOf(freqs: Uint8Array, rows: number, row: number): number {
  let lo = 0;
  let hi = (freqs.length - rows) / RECORD - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = rows + mid * RECORD;
    const r = recordRow(freqs, at);
    if (r === row) return at;
    if (r < row) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The frequency of a row's term in field `f`, given the row's record (`recordOf`). */
export function freqIn(freqs: Uint8Array, row: number, record: number, f: number): number {
  return f === BODY ? freqs[row]! : record < 0 ? 0 : freqs[record + 3 + f]!;
}

/** The frequency of a row's term in field `f`. */
export function tfAt(v: DocVector, row: number, f: number): number {
  return f === BODY ? v.freqs[row]! : freqIn(v.freqs, row, recordOf(v.freqs, v.termIds.length, row), f);
}

/** True when the term (its row in the vector) is in the document's title. */
export function inTitle(v: DocVector, row: number): boolean {
  return tfAt(v, row, TITLE) !== 0;
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

/** Whether the document holds every term of `ids` (none given: true) — the other words of a synonym of several words (query/together.ts). */
export function holdsAll(v: DocVector, ids: Uint32Array | undefined): boolean {
  if (!ids) return true;
  for (let i = 0; i < ids.length; i++) if (indexOf(v.termIds, ids[i]!) < 0) return false;
  return true;
}
