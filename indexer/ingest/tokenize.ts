/**
 * One tokenizer for documents and queries, so that what is indexed is what is asked: a token is a
 * Unicode letter or digit followed by letters, digits and combining marks
 * (`[\p{L}\p{N}][\p{L}\p{N}\p{M}]*`), with case and diacritics folded ("Ü" → "u", "Straße" →
 * "strasse"), then stemmed (Porter, English; `index.stemming`). Tokens keep their offsets in the
 * original text for snippets.
 *
 * Tokenizing is a third of a parse worker's time per page, so the scan reads char codes: runs of
 * ASCII letters and digits (most of any page) are sliced directly, and only a word that holds other
 * characters goes through the Unicode regular expression. tokenize.test.ts checks that the result
 * is exactly the regular expression's, on generated text and on every character of the BMP.
 */

import { stemmer } from 'stemmer';

export const MAX_TOKEN_LENGTH = 64;

/** A word at a given position (sticky): the non-ASCII path. */
const WORD_AT = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/uy;

const ASCII = /^[\x00-\x7f]*$/;

export function fold(word: string): string {
  // Most tokens are ASCII: lowercasing is all they need (Unicode normalization is the slow part).
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');
}

/** ASCII class of each code below 128: 0 other, 1 lowercase letter or digit, 2 uppercase letter. */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_CLASS[c] = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) ? 1 : c >= 65 && c <= 90 ? 2 : 0;

/**
 * Calls `emit(term, start, end)` for each token of `text`, in order. A word of ASCII letters and
 * digits whose first character (lowercased) is flagged in `skip` is emitted as '' — not sliced
 * nor lowercased: a reader looking for a few terms (locate.ts) only counts it.
 */
export function scanTokens(text: string, emit: (term: string, start: number, end: number) => void, skip?: Uint8Array): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      const k = ASCII_CLASS[c]!;
      if (k === 0) {
        i++;
        continue;
      }
      let j = i + 1;
      let upper = k === 2;
      let d = 0;
      while (j < n && (d = text.charCodeAt(j)) < 128) {
        const kd = ASCII_CLASS[d]!;
        if (kd === 0) break;
        if (kd === 2) upper = true;
        j++;
      }
      // Ended by a non-ASCII character: the word may go on (é, ², a combining mark).
      if (j < n && d >= 128) {
        i = unicodeWord(text, i, emit);
        continue;
      }
      if (j - i <= MAX_TOKEN_LENGTH) {
        if (skip !== undefined && skip[c | 0x20] === 1) emit('', i, j);
        else {
          const w = text.slice(i, j);
          emit(upper ? w.toLowerCase() : w, i, j);
        }
      }
      i = j;
    } else {
      i = unicodeWord(text, i, emit);
    }
  }
}

/** Matches the word starting at `i`, if any, emits it, and returns where scanning goes on. */
function unicodeWord(text: string, i: number, emit: (term: string, start: number, end: number) => void): number {
  WORD_AT.lastIndex = i;
  const m = WORD_AT.exec(text);
  if (!m) {
    // Not a word character: skip it (a whole surrogate pair at once).
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    return c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? i + 2 : i + 1;
  }
  const end = i + m[0].length;
  if (CJK.test(m[0])) {
    // Chinese and Japanese put no spaces between words: a dictionary segmenter finds them.
    for (const seg of cjkWords(m[0])) {
      const term = fold(seg.segment);
      if (term && term.length <= MAX_TOKEN_LENGTH) emit(term, i + seg.index, i + seg.index + seg.segment.length);
    }
    return end;
  }
  const term = fold(m[0]);
  if (term && term.length <= MAX_TOKEN_LENGTH) emit(term, i, end);
  return end;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
let segmenter: Intl.Segmenter | undefined;

/** The words of a run of letters holding CJK characters (Intl.Segmenter, ICU's dictionaries). */
export function cjkWords(run: string): Intl.SegmentData[] {
  segmenter ??= new Intl.Segmenter('ja', { granularity: 'word' });
  return [...segmenter.segment(run)].filter((s) => s.isWordLike);
}

export type Stemming = 'english' | 'none';

/**
 * The stemming of this thread's tokenizer: documents and queries must be tokenized alike, so the
 * appliance sets it once at start, in the main thread and in every parse worker.
 */
let stemming: Stemming = 'english';
export function setStemming(s: Stemming): void {
  stemming = s;
}
export function currentStemming(): Stemming {
  return stemming;
}

// Stemming is a few string operations per token; documentation repeats its words, so stems are cached.
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 200_000;
/** The stem of a folded word (itself when stemming is off or it is not an English word). */
export function stem(t: string): string {
  if (stemming === 'none') return t;
  let s = stems.get(t);
  if (s === undefined) {
    // Porter's rules are for English words: tokens with digits or other letters are left alone.
    s = /^[a-z]+$/.test(t) ? stemmer(t) : t;
    if (stems.size < MAX_CACHED_STEMS) stems.set(t, s);
  }
  return s;
}

/** Folded words of `text`, not stemmed, in order (`tokenize` is `stem` of each). */
export function words(text: string): string[] {
  const out: string[] = [];
  scanTokens(text, (t) => out.push(t));
  return out;
}

/** Folded tokens of `text`, in order (duplicates kept). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scanTokens(text, (t) => out.push(stem(t)));
  return out;
}

export type PositionedToken = { readonly term: string; readonly start: number; readonly end: number };

/** Tokens with their offsets in `text`. */
export function tokenizeWithOffsets(text: string): PositionedToken[] {
  const out: PositionedToken[] = [];
  scanTokens(text, (term, start, end) => out.push({ term: stem(term), start, end }));
  return out;
}
