/**
 * Where a query's terms occur in a text — for snippets, exact phrases and phrase evidence, which
 * read candidates' text at query time (the index keeps no positions).
 *
 * Why not tokenize the text: a query reads the text of dozens to hundreds of pages, and making a
 * token of every word (a string, folded and stemmed) was most of a two-word query's time. A word
 * whose first letter is none of the terms' cannot be one of them — Porter's rules only change a
 * word's ending (tokenize.test.ts checks this) — so it is only counted, never sliced or stemmed;
 * nor is one whose first two letters are none of the terms' (a stem of two letters or more keeps
 * the word's first two, but for a y made an i: "ays" → "ai"). The result is exactly what filtering `tokenize(text)` would give
 * (locate.test.ts).
 */
import { scanTokens, stem } from './tokenize.ts';

export type Occurrences = {
  /** How many tokens the text has (matching or not). */
  readonly tokens: number;
  /** The token index of each occurrence of a term, ascending. */
  readonly at: Int32Array;
  /** Each occurrence's term (aligned with `at`). */
  readonly terms: readonly string[];
  /** Character offsets of every token, by token index (for a snippet's window). */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
};

/**
 * The occurrences in `text` of any of `terms` (folded and stemmed as the index does). Without
 * `offsets`, `starts` and `ends` are left empty (a phrase needs only the order).
 */
export function locate(text: string, terms: readonly string[], offsets = true): Occurrences {
  const wanted = new Set(terms);
  const firsts = new Set(terms.map((t) => t.charCodeAt(0)));
  // The first two letters of terms of two or more, and the first letter of terms of one.
  const twos = new Set<number>();
  for (const t of terms) {
    if (t.length < 2) continue;
    twos.add(t.charCodeAt(0) * 65536 + t.charCodeAt(1));
    if (t[1] === 'i') twos.add(t.charCodeAt(0) * 65536 + 121); // (y)
  }
  const ones = new Set(terms.filter((t) => t.length === 1).map((t) => t.charCodeAt(0)));
  const skip = new Uint8Array(128);
  for (let c = 0; c < 128; c++) skip[c] = firsts.has(c) ? 0 : 1;
  let starts = new Int32Array(offsets ? 16 + (text.length >> 2) : 0);
  let ends = new Int32Array(starts.length);
  const at: number[] = [];
  const found: string[] = [];
  let n = 0;
  scanTokens(
    text,
    (word, start, end) => {
      if (offsets) {
        if (n === starts.length) {
          starts = grow(starts);
          ends = grow(ends);
        }
        starts[n] = start;
        ends[n] = end;
      }
      // ('' is a skipped ASCII word; other words are checked by their first letters here.)
      const c = word.charCodeAt(0);
      if (word !== '' && (word.length === 1 ? wanted.has(word) : twos.has(c * 65536 + word.charCodeAt(1)) || ones.has(c))) {
        const term = stem(word);
        if (wanted.has(term)) {
          at.push(n);
          found.push(term);
        }
      }
      n++;
    },
    skip,
  );
  return { tokens: n, at: Int32Array.from(at), terms: found, starts: starts.subarray(0, offsets ? n : 0), ends: ends.subarray(0, offsets ? n : 0) };
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** True when the text holds `phrase` (terms) as a run of adjacent tokens. */
export function hasPhrase(o: Occurrences, phrase: readonly string[]): boolean {
  // Every token of a run is an occurrence, so a run is a run of consecutive occurrences.
  outer: for (let k = 0; k + phrase.length <= o.at.length; k++) {
    for (let j = 0; j < phrase.length; j++) {
      if (o.terms[k + j] !== phrase[j] || o.at[k + j] !== o.at[k]! + j) continue outer;
    }
    return true;
  }
  return false;
}

/** How many of `pairs` ("a b": term a right before term b) stand side by side in the text. */
export function adjacentPairs(o: Occurrences, pairs: ReadonlySet<string>): number {
  const found = new Set<string>();
  for (let k = 0; k + 1 < o.at.length && found.size < pairs.size; k++) {
    if (o.at[k + 1] !== o.at[k]! + 1) continue;
    const pair = `${o.terms[k]} ${o.terms[k + 1]}`;
    if (pairs.has(pair)) found.add(pair);
  }
  return found.size;
}
