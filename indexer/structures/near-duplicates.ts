/**
 * How many indexed documents have a near-duplicate — another document within `maxDistance` bits
 * of SimHash — and in how many clusters (documents joined by such pairs): the dashboard's figures.
 *
 * A census, not a running count: every fingerprint is read, band by band (simhashes.ts `bandsFor`:
 * two documents that near share a band). In each band the documents are sorted by the band's
 * bits (one native sort of packed keys) and compared within each run of equal bits — every pair
 * when the run holds at most RUN_PAIRS, else each with its WINDOW neighbours in fingerprint order
 * (a run that large is one big cluster of near-identical pages, whose neighbours are near). The cost
 * is O(N log N) per band, run a band at a time between other work, and at most once per
 * `intervalMs` and only when the fingerprints changed (NearDuplicateCensus).
 */
import { bandsFor, type SimHashes } from './simhashes.ts';
import { popcount } from '../../lib/simhash.ts';

/** Runs of equal band bits up to this size are compared pair by pair. */
const RUN_PAIRS = 32;
/** In a larger run, each document is compared with this many after it. */
const WINDOW = 32;

export type NearDuplicateFigures = {
  /** Documents with at least one near-duplicate. */
  readonly documents: number;
  /** Groups of such documents, joined by near-duplicate pairs. */
  readonly clusters: number;
  /** When they were counted (epoch ms). */
  readonly countedAt: number;
};

/** Counts near-duplicate documents and clusters now (yielding to other work between bands). */
export async function countNearDuplicates(s: SimHashes, maxDistance: number, now: number): Promise<NearDuplicateFigures> {
  const { hi, lo } = s.all();
  const n = hi.length;
  if (maxDistance <= 0 || n < 2) return { documents: 0, clusters: 0, countedAt: now };
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const near = new Uint8Array(n);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const check = (a: number, b: number) => {
    if (popcount(hi[a]! ^ hi[b]!) + popcount(lo[a]! ^ lo[b]!) > maxDistance) return;
    near[a] = near[b] = 1;
    parent[root(a)] = root(b);
  };
  const packed = n < 2 ** 21;
  for (const band of bandsFor(maxDistance)) {
    // Documents in order of the band's bits: packed keys (bits × 2^21 + position) sort natively.
    const bits = new Float64Array(n);
    for (let i = 0; i < n; i++) bits[i] = band(hi[i]!, lo[i]!);
    let order: ArrayLike<number>;
    if (packed) {
      const keys = new Float64Array(n);
      for (let i = 0; i < n; i++) keys[i] = (bits[i]! % 2 ** 32) * 2 ** 21 + i;
      keys.sort();
      order = Uint32Array.from(keys, (k) => k % 2 ** 21);
    } else order = [...Array(n).keys()].sort((a, b) => bits[a]! - bits[b]!);
    for (let start = 0; start < n; ) {
      let end = start + 1;
      while (end < n && bits[order[end]!] === bits[order[start]!]) end++;
      if (end - start === 1) {
        start = end;
        continue;
      }
      const run = Array.from({ length: end - start }, (_, k) => order[start + k]!);
      if (run.length <= RUN_PAIRS) {
        for (let x = 0; x < run.length; x++) for (let y = x + 1; y < run.length; y++) check(run[x]!, run[y]!);
      } else {
        run.sort((a, b) => hi[a]! - hi[b]! || lo[a]! - lo[b]!);
        for (let x = 0; x < run.length; x++) for (let y = x + 1; y <= x + WINDOW && y < run.length; y++) check(run[x]!, run[y]!);
      }
      start = end;
    }
    await new Promise((r) => setImmediate(r));
  }
  let documents = 0;
  const roots = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (!near[i]) continue;
    documents++;
    roots.add(root(i));
  }
  return { documents, clusters: roots.size, countedAt: now };
}

/**
 * The last census, and a new one started when the fingerprints changed since it and it is at least
 * `intervalMs` old — or the number of fingerprints changed by a tenth (a growing index is counted
 * ~log₁.₁ N times in all: the cost stays a small multiple of one census). Asking is free: the
 * figures lag by at most one census.
 */
export class NearDuplicateCensus {
  private last: NearDuplicateFigures | undefined;
  private countedVersion = -1;
  private countedSize = 0;
  private running: Promise<NearDuplicateFigures> | undefined;

  constructor(
    private readonly simhashes: SimHashes,
    private readonly maxDistance: number,
    private readonly intervalMs = 60_000,
  ) {}

  /** The latest figures (undefined before the first census ends); starts a census when due. */
  figures(now = Date.now()): NearDuplicateFigures | undefined {
    const stale = this.simhashes.version !== this.countedVersion;
    const grown = Math.abs(this.simhashes.count - this.countedSize) * 10 >= Math.max(10, this.countedSize);
    if (stale && !this.running && (!this.last || grown || now - this.last.countedAt >= this.intervalMs)) void this.count(now);
    return this.last;
  }

  /** Counts now (or waits for the census under way). */
  count(now = Date.now()): Promise<NearDuplicateFigures> {
    if (this.running) return this.running;
    const version = this.simhashes.version;
    const size = this.simhashes.count;
    this.running = countNearDuplicates(this.simhashes, this.maxDistance, now)
      .then((f) => {
        this.last = f;
        this.countedVersion = version;
        this.countedSize = size;
        return f;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
