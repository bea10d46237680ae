/**
 * Damerau–Levenshtein distance (the optimal string alignment variant: a transposition of two
 * adjacent characters costs one edit) — one implementation for every "did you mean": the config's
 * unknown keys and the index's unknown words — and the strings one such edit away from a word,
 * which the index's typo search generates (indexer/structures/typo-index.ts).
 */

/** The distance between `a` and `b`, or `limit + 1` as soon as it is known to exceed `limit`. */
export function editDistance(a: string, b: string, limit = Math.max(a.length, b.length)): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[m]! > limit ? limit + 1 : prev[m]!;
}

/**
 * The distinct strings one edit from `word` — a deletion, a transposition of adjacent characters,
 * a substitution or an insertion of a character of `alphabet` — without `word` itself. Only edits
 * at or after index `from` are made (a word's start left as typed). About (2·|alphabet| + 2) × the
 * word's length strings: callers bound both.
 */
export function oneEditAway(word: string, alphabet: string, from = 0): string[] {
  const out = new Set<string>();
  const n = word.length;
  for (let i = Math.max(0, from); i <= n; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (i < n) out.add(head + tail.slice(1));
    if (i + 1 < n) out.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const c of alphabet) {
      if (i < n && c !== tail[0]) out.add(head + c + tail.slice(1));
      out.add(head + c + tail);
    }
  }
  out.delete(word);
  return [...out];
}
