/**
 * Where a query's terms occur in a text — for snippets, exact phrases and phrase evidence, which
 * read candidates' text at query time (the index keeps no positions).
 *
 * Why not tokenize the text: a query reads the text of dozens to hundreds of pages, and making a
 * token of every word (a string, folded and stemmed) was most of a two-word query's time. A word
 * whose first letter is none of the terms' cannot be one of them — Porter's rules only change a
 * word's ending (tokenize.test.ts checks this) — so it is only counted, never sliced or stemmed;
 * nor is one whose first two letters are none of the terms' (a stem of two letters or more keeps
 * the word's first two, but for a y made an i: "ays" → "ai"). The result is exactly what
 * filtering `tokenize(text)` would give (locate.test.ts). A page is read with its language's stemmer
 * (`stem`): Snowball's stemmers keep a word's first two letters too (tokenize.test.ts).
 */
import { MAX_TOKEN_LENGTH, scanOffsets, stem as defaultStem } from '../ingest/tokenize.ts';

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
export function locate(text: string, terms: readonly string[], offsets = true, stem: (word: string) => string = defaultStem): Occurrences {
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
  const offsetsOf = { starts: new Int32Array(16 + (text.length >> 2)), ends: new Int32Array(16 + (text.length >> 2)) };
  const at: number[] = [];
  const found: string[] = [];
  // (Only a word whose first letter is a term's comes here; its first two letters are checked.)
  const n = scanOffsets(text, skip, offsetsOf, (word, k) => {
    const c = word.charCodeAt(0);
    if (word.length === 1 ? wanted.has(word) : twos.has(c * 65536 + word.charCodeAt(1)) || ones.has(c)) {
      const term = stem(word);
      if (wanted.has(term)) {
        at.push(k);
        found.push(term);
      }
    }
  });
  return {
    tokens: n,
    at: Int32Array.from(at),
    terms: found,
    starts: offsets ? offsetsOf.starts.subarray(0, n) : new Int32Array(0),
    ends: offsets ? offsetsOf.ends.subarray(0, n) : new Int32Array(0),
  };
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

const NON_ASCII = /[^\x00-\x7f]+/g;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const ALNUM = /[A-Za-z0-9]+/y;

/** True when the text has a letter, digit or mark outside ASCII: its words may need Unicode rules (locate). */
function hasNonAsciiWord(text: string): boolean {
  // Most non-ASCII characters in documentation are punctuation and spaces: runs of them are few.
  NON_ASCII.lastIndex = 0;
  for (let m = NON_ASCII.exec(text); m; m = NON_ASCII.exec(text)) if (WORD_CHAR.test(m[0])) return true;
  return false;
}

/**
 * A quick test of a text for a phrase (terms), for the common case of a text whose words are all
 * ASCII letters and digits: the regular-expression engine jumps to the words that may be its
 * first term (their first two letters; see `locate`), and only those and the words right after
 * them are stemmed. Answers undefined for a text it cannot judge so (non-ASCII letters, an overlong
 * run after a first word): `hasPhrase(locate(…))` can. Same answers as that one (locate.test.ts).
 */
export function phraseTest(phrase: readonly string[], stem: (word: string) => string = defaultStem): (text: string) => boolean | undefined {
  if (!phrase.length || phrase.some((t) => !/^[a-z0-9]+$/.test(t))) return () => undefined;
  const [first] = phrase as [string, ...string[]];
  const either = (c: string) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c);
  // The first term's first letter, and its second (or a y that Porter made an i).
  const second = first.length < 2 ? '' : first[1] === 'i' ? '[iIyY]' : either(first[1]!);
  const starts = new RegExp(`(?<![A-Za-z0-9])${either(first[0]!)}${second}[A-Za-z0-9]*`, 'g');
  const wordAt = (text: string, from: number): string | undefined => {
    let i = from;
    while (i < text.length && !isAlnum(text.charCodeAt(i))) i++;
    ALNUM.lastIndex = i;
    return ALNUM.exec(text)?.[0];
  };
  return (text) => {
    if (hasNonAsciiWord(text)) return undefined;
    starts.lastIndex = 0;
    for (let m = starts.exec(text); m; m = starts.exec(text)) {
      // (A run too long to be a token is no word; after a phrase's first word, one would join
      // its neighbours, a case left to locate.)
      if (m[0].length > MAX_TOKEN_LENGTH || stem(m[0].toLowerCase()) !== first) continue;
      let at = m.index + m[0].length;
      let k = 1;
      for (; k < phrase.length; k++) {
        const w = wordAt(text, at);
        if (w !== undefined && w.length > MAX_TOKEN_LENGTH) return undefined;
        if (w === undefined || stem(w.toLowerCase()) !== phrase[k]) break;
        at = ALNUM.lastIndex;
      }
      if (k === phrase.length) return true;
    }
    return false;
  };
}

/** Occurrences found by their characters alone (sparseLocator): where each starts, and its term, in order. */
export type SparseOccurrences = { readonly starts: readonly number[]; readonly terms: readonly string[] };

/**
 * The query's finder of `terms` in a long stretch of a text without tokenizing it: the regular
 * expression engine jumps to the words that may be a term (their first two letters, or the first
 * of a one-letter term, as in `locate`), and only those are stemmed — about a seventh of a
 * token-by-token scan's time on rustdoc's pages. It gives no token numbers, only where each
 * occurrence starts. For the stretch from `from` to `to` of `text`, the occurrences that start in
 * it: the same words `locate` would find, or undefined when the stretch has a letter, digit or mark
 * outside ASCII (Unicode's rules: `locate` can read it).
 */
export function sparseLocator(
  terms: readonly string[],
  stem: (word: string) => string = defaultStem,
): (text: string, from: number, to: number) => SparseOccurrences | undefined {
  // (In a stretch of ASCII words, a term of other characters cannot occur.)
  const ascii = [...new Set(terms)].filter((t) => /^[a-z0-9]+$/.test(t));
  const wanted = new Set(ascii);
  const prefixes = new Set<string>();
  for (const t of ascii) {
    if (t.length === 1) prefixes.add(t);
    else {
      prefixes.add(t.slice(0, 2));
      if (t[1] === 'i') prefixes.add(`${t[0]}y`);
    }
  }
  const words = prefixes.size ? new RegExp(`(?<![A-Za-z0-9])(?:${[...prefixes].join('|')})[A-Za-z0-9]*`, 'gi') : undefined;
  return (text, from, to) => {
    if (hasNonAsciiWord(text.slice(from, to))) return undefined;
    const starts: number[] = [];
    const found: string[] = [];
    if (!words) return { starts, terms: found };
    words.lastIndex = from;
    for (let m = words.exec(text); m && m.index < to; m = words.exec(text)) {
      // (A run longer than a token is none: tokenize.ts MAX_TOKEN_LENGTH.)
      if (m[0].length > MAX_TOKEN_LENGTH) continue;
      const term = stem(m[0].toLowerCase());
      if (wanted.has(term)) {
        starts.push(m.index);
        found.push(term);
      }
    }
    return { starts, terms: found };
  };
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
