/** Keeping the best few of many scored candidates. */

export type Ranked = { id: number; score: number };

/** The k best of `ids` by score (ties: lower id first), best first — without sorting them all. */
export function topK(ids: ArrayLike<number>, scores: Float64Array, k: number): Ranked[] {
  const better = (i: number, j: number) => scores[i]! > scores[j]! || (scores[i] === scores[j] && ids[i]! < ids[j]!);
  // A min-heap of indexes: its root is the worst of the best k so far.
  const heap: number[] = [];
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let worst = at;
      if (l < heap.length && better(heap[worst]!, heap[l]!)) worst = l;
      if (r < heap.length && better(heap[worst]!, heap[r]!)) worst = r;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  };
  // Most candidates score below the worst kept: one comparison rejects them.
  let floor = -Infinity;
  for (let i = 0; i < ids.length; i++) {
    if (scores[i]! < floor) continue;
    if (heap.length < k) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!better(heap[parent]!, heap[at]!)) break;
        [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
        at = parent;
      }
      if (heap.length === k) floor = scores[heap[0]!]!;
    } else if (k > 0 && better(i, heap[0]!)) {
      heap[0] = i;
      down(0);
      floor = scores[heap[0]!]!;
    }
  }
  return heap.map((i) => ({ id: ids[i]!, score: scores[i]! })).sort(byScore);
}

/** Best first; ties: lower id first. */
export const byScore = (a: Ranked, b: Ranked): number => b.score - a.score || a.id - b.id;
