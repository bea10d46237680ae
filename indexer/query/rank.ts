/** Keeping the best few of many scored candidates. */

export type Ranked = { id: number; score: number };

/**
 * The k best of `ids` by score (ties: lower id first), best first — without sorting them all.
 * A min-heap of k indexes whose root is the worst kept: most candidates score below it and cost
 * one comparison. Written without closures, destructuring swaps or boxed numbers: it runs over
 * every candidate of a query (a hundred thousand for a common word), and what it allocated per
 * candidate was half of a query's garbage.
 */
export function topK(ids: ArrayLike<number>, scores: Float64Array, k: number): Ranked[] {
  const size = Math.max(0, Math.min(k, ids.length));
  const heap = new Int32Array(size);
  let filled = 0;
  for (let i = 0; i < ids.length; i++) {
    if (filled < size) {
      // Sift up: the new one rises while it is worse than its parent.
      let at = filled++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!better(ids, scores, heap[parent]!, i)) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = i;
    } else if (size > 0 && better(ids, scores, i, heap[0]!)) {
      siftDown(ids, scores, heap, i);
    }
  }
  const out: Ranked[] = [];
  for (let j = 0; j < size; j++) out.push({ id: ids[heap[j]!]!, score: scores[heap[j]!]! });
  return out.sort(byScore);
}

/** Whether candidate i ranks above candidate j. */
function better(ids: ArrayLike<number>, scores: Float64Array, i: number, j: number): boolean {
  const a = scores[i]!;
  const b = scores[j]!;
  return a > b || (a === b && ids[i]! < ids[j]!);
}

/** Puts candidate `i` at the root (replacing the worst kept) and lets it sink to its place. */
function siftDown(ids: ArrayLike<number>, scores: Float64Array, heap: Int32Array, i: number): void {
  const n = heap.length;
  let at = 0;
  for (;;) {
    const l = 2 * at + 1;
    if (l >= n) break;
    const r = l + 1;
    // The worse child: the one to swap with if it is worse than i.
    const child = r < n && better(ids, scores, heap[l]!, heap[r]!) ? r : l;
    if (!better(ids, scores, i, heap[child]!)) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = i;
}

/** Best first; ties: lower id first. */
export const byScore = (a: Ranked, b: Ranked): number => b.score - a.score || a.id - b.id;
