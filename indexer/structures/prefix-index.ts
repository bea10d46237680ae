/**
 * Completions of a prefix from the term dictionary (as-you-type search, /api/suggest).
 *
 * Term ids are kept in buckets by their first three characters (a two-character term in a bucket
 * of its own), each bucket sorted by term: a new term is placed by binary search, and the terms
 * beginning with a prefix are one run of its bucket — or, for a two-character prefix, of the few
 * dozen buckets under it. A bucket is a small part of the vocabulary (the largest a few thousand
 * terms at a million), so placing a term copies little, and a query reads only the run, never
 * the vocabulary.
 *
 * Terms are never removed (nor are they from the dictionary): a term no document holds any more
 * has weight 0 and is skipped.
 */

/** Bucket keys are this long. */
const KEY = 3;

/** What a query reads of the prefix index: a prefix's completions (a shard answers from the corpus's: shards/replay.ts). */
export type Completer = Pick<PrefixIndex, 'complete'>;

export class PrefixIndex {
  private readonly buckets = new Map<string, number[]>();
  /** The bucket keys under each two-character prefix (for a prefix of two). */
  private readonly under = new Map<string, string[]>();
  private count = 0;

  /** `termOf`: a term by its id (the dictionary's). */
  constructor(private readonly termOf: (id: number) => string) {}

  /** Terms held. */
  get size(): number {
    return this.count;
  }

  /** Adds a term (of two characters or more; shorter ones complete nothing). */
  add(id: number): void {
    const term = this.termOf(id);
    if (term.length < 2) return;
    const key = term.slice(0, KEY);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = [];
      this.buckets.set(key, bucket);
      const two = key.slice(0, 2);
      const keys = this.under.get(two);
      if (keys) keys.push(key);
      else this.under.set(two, [key]);
    }
    bucket.splice(this.lowerBound(bucket, term), 0, id);
    this.count++;
  }

  /**
   * Up to `limit` ids of terms beginning with `prefix` (the prefix itself included if it is a
   * term; at least `shortest` characters, 1 or 2 — one reads every bucket under it, a twentieth of
   * the vocabulary or so), those of highest `weight` first (ties: shorter, then alphabetical);
   * terms of weight 0 are left out.
   */
  complete(prefix: string, weight: (id: number) => number, limit: number, shortest = 2): number[] {
    if (prefix.length < Math.max(1, shortest) || limit <= 0) return [];
    const keys =
      prefix.length >= KEY
        ? [prefix.slice(0, KEY)]
        : prefix.length === 2
          ? (this.under.get(prefix) ?? [])
          : [...this.under].flatMap(([two, keys]) => (two[0] === prefix ? keys : []));
    const best = new TopK(limit, weight, this.termOf);
    for (const key of keys) {
      const bucket = this.buckets.get(key);
      if (!bucket) continue;
      for (let i = prefix.length > KEY ? this.lowerBound(bucket, prefix) : 0; i < bucket.length; i++) {
        const id = bucket[i]!;
        if (!this.termOf(id).startsWith(prefix)) break;
        best.offer(id);
      }
    }
    return best.sorted();
  }

  /** The first index of `bucket` whose term is not below `term`. */
  private lowerBound(bucket: readonly number[], term: string): number {
    let lo = 0;
    let hi = bucket.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.termOf(bucket[mid]!) < term) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The best k ids by weight, kept in a small min-heap: a run of thousands costs one comparison each. */
class TopK {
  private readonly heap: { id: number; w: number }[] = [];

  constructor(
    private readonly k: number,
    private readonly weight: (id: number) => number,
    private readonly termOf: (id: number) => string,
  ) {}

  offer(id: number): void {
    const w = this.weight(id);
    if (w <= 0) return;
    const h = this.heap;
    if (h.length === this.k && !this.better({ id, w }, h[0]!)) return;
    if (h.length === this.k) h[0] = { id, w };
    else {
      h.push({ id, w });
      for (let at = h.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!this.better(h[parent]!, h[at]!)) break;
        [h[parent], h[at]] = [h[at]!, h[parent]!];
        at = parent;
      }
      return;
    }
    for (let at = 0; ; ) {
      const l = 2 * at + 1;
      const r = l + 1;
      let worst = at;
      if (l < h.length && this.better(h[worst]!, h[l]!)) worst = l;
      if (r < h.length && this.better(h[worst]!, h[r]!)) worst = r;
      if (worst === at) return;
      [h[at], h[worst]] = [h[worst]!, h[at]!];
      at = worst;
    }
  }

  /** Best first. */
  sorted(): number[] {
    return [...this.heap].sort((a, b) => (this.better(a, b) ? -1 : 1)).map((e) => e.id);
  }

  private better(a: { id: number; w: number }, b: { id: number; w: number }): boolean {
    if (a.w !== b.w) return a.w > b.w;
    const ta = this.termOf(a.id);
    const tb = this.termOf(b.id);
    return ta.length !== tb.length ? ta.length < tb.length : ta < tb;
  }
}
