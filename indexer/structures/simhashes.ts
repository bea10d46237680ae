/**
 * Each indexed document's SimHash (lib/simhash.ts), by document id, in typed arrays like the term
 * statistics' per-id arrays: the high and the low 32 bits, and whether it has one. Comparing two
 * documents is two loads and two popcounts — what folding near-duplicates costs per pair (query/fold.ts).
 * 12 bytes per id slot (ids are URL record ids: dense, from 1).
 */
import { halves, popcount } from '../../lib/simhash.ts';

/** Ids below this are kept in the arrays; the rare others in a map. */
const DENSE_IDS = 50_000_000;

/** The distance reported when either document has no fingerprint: farther than any setting. */
export const NO_FINGERPRINT = 65;

export class SimHashes {
  private hi = new Uint32Array(0);
  private lo = new Uint32Array(0);
  private has = new Uint8Array(0);
  private readonly sparse = new Map<number, readonly [number, number]>();
  private size = 0;
  /** Bumped by every change: a census of near-duplicates is stale when it differs. */
  version = 0;

  /** Documents with a fingerprint. */
  get count(): number {
    return this.size;
  }

  /** Sets (or, with none, clears) a document's fingerprint. */
  set(id: number, fingerprint: string | undefined): void {
    this.delete(id);
    if (fingerprint === undefined || !/^[0-9a-f]{16}$/.test(fingerprint)) return;
    const [hi, lo] = halves(fingerprint);
    if (id >= 0 && id < DENSE_IDS) {
      this.growTo(id);
      this.hi[id] = hi;
      this.lo[id] = lo;
      this.has[id] = 1;
    } else this.sparse.set(id, [hi, lo]);
    this.size++;
    this.version++;
  }

  delete(id: number): void {
    if (id >= 0 && id < this.has.length && this.has[id]) this.has[id] = 0;
    else if (!this.sparse.delete(id)) return;
    this.size--;
    this.version++;
  }

  /** The fingerprint's halves, or undefined. */
  get(id: number): readonly [number, number] | undefined {
    if (id >= 0 && id < this.has.length) return this.has[id] ? [this.hi[id]!, this.lo[id]!] : undefined;
    return this.sparse.get(id);
  }

  /** Bits in which the two documents' fingerprints differ; NO_FINGERPRINT when either has none. */
  distance(a: number, b: number): number {
    if (a >= 0 && b >= 0 && a < this.has.length && b < this.has.length) {
      if (!this.has[a] || !this.has[b]) return NO_FINGERPRINT;
      return popcount(this.hi[a]! ^ this.hi[b]!) + popcount(this.lo[a]! ^ this.lo[b]!);
    }
    const x = this.get(a);
    const y = this.get(b);
    return x && y ? popcount(x[0] ^ y[0]) + popcount(x[1] ^ y[1]) : NO_FINGERPRINT;
  }

  /** Every document with a fingerprint: ids and halves, aligned (a census reads them at once). */
  all(): { readonly ids: Uint32Array; readonly hi: Uint32Array; readonly lo: Uint32Array } {
    const ids = new Uint32Array(this.size);
    const hi = new Uint32Array(this.size);
    const lo = new Uint32Array(this.size);
    let n = 0;
    for (let id = 0; id < this.has.length; id++) {
      if (!this.has[id]) continue;
      ids[n] = id;
      hi[n] = this.hi[id]!;
      lo[n++] = this.lo[id]!;
    }
    for (const [id, [h, l]] of this.sparse) {
      ids[n] = id;
      hi[n] = h;
      lo[n++] = l;
    }
    return { ids, hi, lo };
  }

  private growTo(id: number): void {
    if (id < this.has.length) return;
    const size = Math.min(DENSE_IDS, Math.max(1024, id + 1, this.has.length * 2));
    const hi = new Uint32Array(size);
    hi.set(this.hi);
    const lo = new Uint32Array(size);
    lo.set(this.lo);
    const has = new Uint8Array(size);
    has.set(this.has);
    this.hi = hi;
    this.lo = lo;
    this.has = has;
  }
}

/**
 * The bands a 64-bit fingerprint is cut into so that two within `maxDistance` bits share one
 * (pigeonhole: maxDistance + 1 bands, at least one without a differing bit). Each band is a
 * function of the halves giving a small integer: its bits, with the band's number above them.
 */
export function bandsFor(maxDistance: number): ((hi: number, lo: number) => number)[] {
  const n = Math.min(64, maxDistance + 1);
  const bands: ((hi: number, lo: number) => number)[] = [];
  for (let b = 0, from = 0; b < n; b++) {
    const to = Math.round(((b + 1) * 64) / n);
    bands.push(bitsOf(from, to, b));
    from = to;
  }
  return bands;
}

/** Bits [from, to) of the 64 (0 = the low half's lowest), as a number, tagged with the band's number. */
function bitsOf(from: number, to: number, band: number): (hi: number, lo: number) => number {
  const width = to - from;
  return (hi, lo) => {
    let v = 0;
    for (let i = from; i < to; i++) {
      const bit = i < 32 ? (lo >>> i) & 1 : (hi >>> (i - 32)) & 1;
      v = v * 2 + bit;
    }
    return band * 2 ** width + v;
  };
}
